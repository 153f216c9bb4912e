#!/usr/bin/env python3
"""Probe, not product code: three threads parked at known Python stacks
(recursion through sorted(key=), a generator, an asyncio coroutine) that
print their own traceback.extract_stack() as JSON, for cpython-reader.py.
"""
import sys, threading, time, traceback, asyncio, os, json
OUT = sys.argv[1]
ready = threading.Event()
stacks = {}

def record():
    # what Python itself thinks, innermost first
    st = traceback.extract_stack(sys._getframe(1))
    stacks[threading.get_native_id()] = [(f.name, f.filename, f.lineno) for f in reversed(st)]

class Klass:
    def method(self, n):
        if n == 0:
            return sorted([3, 1, 2], key=lambda x: leaf(x))   # C call (sorted) re-enters eval loop
        return self.method(n - 1)

def leaf(x):
    if x == 3:
        gen = gen_func()
        next(gen)
    return x

def gen_func():
    yield from inner_gen()

def inner_gen():
    record()
    ready.set()
    while True:
        time.sleep(100)
    yield 1

async def coro_leaf():
    record()
    ev.set()
    while True:
        time.sleep(100)

async def coro_mid():
    await coro_leaf()

ev = threading.Event()
def thread_main():
    asyncio.run(coro_mid())

t = threading.Thread(target=thread_main, name="worker-1")
t.start()
ev.wait()
def main():
    th = threading.Thread(target=lambda: Klass().method(3), name="worker-2")
    th.start()
    ready.wait()
    time.sleep(0.2)
    with open(OUT, "w") as f:
        json.dump({str(k): v for k, v in stacks.items()}, f)
    time.sleep(1000)
main()
