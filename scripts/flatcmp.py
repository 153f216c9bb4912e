#!/usr/bin/python3
"""Compare ctprof's flat self profile with perf's, by ELF symbol.

    scripts/flatcmp.py [options] CTPROF.pb.gz PERF.DATA

CTPROF.pb.gz is what `ctprof -o x.pb.gz` wrote; PERF.DATA is what
`perf record -e cpu-clock -g` (or --call-graph dwarf) wrote.  Both are
turned into a flat self profile over the same keys, and the total variation
distance between the two is printed: half the sum over all keys of the
absolute difference of the two shares (0: the same profile, 1: nothing in
common).  In CTPROF.pb.gz's place may stand a perf.data file or perf
script output: two runs of perf compared, for how far apart the workload's
own runs are.

How a sample gets its key
-------------------------
Both tools' leaf addresses are taken back to a link-time address in the
module's ELF file (ctprof: pprof location address, mapping start and file
offset; perf: the dso-relative address `perf script` prints for a call-chain
frame, a file offset), then looked up in the module's own symbol tables
(.symtab, .dynsym and those of its separate debug file, found by build id or
.gnu_debuglink under /usr/lib/debug).  The key is (module, start address of
the enclosing function symbol), so:

- an inlined function counts as the function it was inlined into: its code
  lies inside that function's symbol;
- aliases are one key: malloc, __libc_malloc and __GI___libc_malloc start
  at the same address; the name shown is a global one without leading
  underscores if there is one, else one the tools gave, else the shortest;
- code outside every symbol of a stripped binary is keyed by the start of
  its unwind-table entry (an FDE of .eh_frame covers one function, or one
  part of it such as a .cold part), shown as module+0xSTART; code with no
  FDE either is one key per module, module+[no symbol];
- PLT stubs are one key per module, module@plt;
- an address outside every mapped file is [unknown], on both sides; a
  module that cannot be read from disk (vdso, deleted file) keys by the
  name the tool gave, and where it gave none, or only an address, is
  module+[no symbol];
- code a JIT names in /tmp/perf-PID.map keys by that name alone, on both
  sides (ctprof's frames there have no module, perf's the map file).

perf samples taken in the kernel are charged to the first user-space frame
of their call chain (the instruction that made the system call or took the
fault), as ctprof charges them: it sees user space only.  A perf sample with
no user-space frame is [kernel, no user frame].  Without call chains
(perf record without -g), kernel samples can only be that.  ctprof's
kernel-mode samples (its perf trigger, where the kernel allows them) have a
[kernel] leaf under the frame that entered the kernel: they are charged to
that frame too.  A [kernel] frame with nothing under it (a thread's kernel
time where kernel samples are not allowed) stays [kernel].

Output
------
By default a table of the keys with at least --min percent on either side,
then the distance.  --tsv writes every key as `ctprof% TAB perf% TAB
module TAB name`, highest first, then `#distance TAB D`, `#samples TAB
CTPROF TAB PERF` and one `#cum TAB NAME TAB CTPROF% TAB PERF%` per --cum
(the share of samples with NAME anywhere on the stack; callers are looked
up at their return address - 1).  --explain adds the names each tool gave
each key.

Only Python's standard library is used; perf must be on PATH for PERF.DATA
(or pass the output of `perf script -F tid,period,ip,sym,symoff,dso
--no-inline --no-demangle` with --perf-script).
"""

import argparse
import bisect
import gzip
import math
import os
import re
import struct
import subprocess
import sys

KERNEL_START = 0xffff800000000000

# ----------------------------------------------------------------- ELF --


class Elf:
    """What a comparison needs from one ELF file: loadable segments,
    function symbols (with those of its debug file), PLT sections and the
    FDE ranges of .eh_frame.  Any malformed part is left out, not trusted."""

    def __init__(self, path):
        self.path = path
        self.loads = []          # (p_offset, p_filesz, p_vaddr)
        self.plts = []           # (start, end)
        self.build_id = None
        self.debuglink = None
        self.funcs = {}          # start -> [size, set of (name, global)]
        self._fdes = None
        self._starts = None
        with open(path, 'rb') as f:
            self.data = f.read()
        self._parse(self.data, main=True)
        dbg = self._debug_file()
        if dbg:
            try:
                with open(dbg, 'rb') as f:
                    self._parse(f.read(), main=False)
            except OSError:
                pass

    def _parse(self, d, main):
        if len(d) < 64 or d[:4] != b'\x7fELF' or d[4] != 2 or d[5] != 1:
            raise ValueError('not a 64-bit little-endian ELF file')
        (phoff, shoff) = struct.unpack_from('<QQ', d, 32)
        (phentsize, phnum, shentsize, shnum, shstrndx) = struct.unpack_from('<HHHHH', d, 54)
        if main:
            for i in range(phnum):
                o = phoff + i * phentsize
                if o + 56 > len(d):
                    break
                p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from('<IIQQQQ', d, o)
                if p_type == 1:
                    self.loads.append((p_offset, p_filesz, p_vaddr))
        secs = []
        for i in range(shnum):
            o = shoff + i * shentsize
            if o + 64 > len(d):
                return
            secs.append(struct.unpack_from('<IIQQQQIIQQ', d, o))
        if not secs or shstrndx >= len(secs):
            return

        def name(s):
            off = secs[shstrndx][4] + s[0]
            end = d.find(b'\0', off)
            return d[off:end].decode('latin-1') if end >= 0 else ''

        for s in secs:
            nm, typ, flags, addr, off, size, link = name(s), s[1], s[2], s[3], s[4], s[5], s[6]
            if off + size > len(d) and typ != 8:
                continue
            if typ in (2, 11) and link < len(secs):          # SHT_SYMTAB, SHT_DYNSYM
                self._symbols(d, off, size, secs[link])
            if not main:
                continue
            if nm in ('.plt', '.plt.sec', '.plt.got', '.iplt'):
                self.plts.append((addr, addr + size))
            elif nm == '.note.gnu.build-id' and size >= 16:
                namesz, descsz, ntype = struct.unpack_from('<III', d, off)
                if ntype == 3 and namesz == 4:
                    self.build_id = d[off + 16:off + 16 + descsz].hex()
            elif nm == '.gnu_debuglink':
                self.debuglink = d[off:d.find(b'\0', off)].decode('latin-1')
            elif nm == '.eh_frame' and typ == 1:
                self._eh_frame = (off, size, addr)

    def _symbols(self, d, off, size, strsec):
        stroff, strsize = strsec[4], strsec[5]
        for o in range(off, off + size - 23, 24):
            st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from('<IBBHQQ', d, o)
            if st_info & 0xf not in (2, 10) or st_shndx == 0 or st_value == 0:
                continue                                     # FUNC, GNU_IFUNC; defined
            if st_name >= strsize:
                continue
            end = d.find(b'\0', stroff + st_name)
            nm = d[stroff + st_name:end].decode('utf-8', 'replace')
            nm = nm.split('@', 1)[0]                         # .dynsym versions
            e = self.funcs.setdefault(st_value, [0, set()])
            e[0] = max(e[0], st_size)
            e[1].add((nm, st_info >> 4 in (1, 2)))           # GLOBAL or WEAK

    def _debug_file(self):
        cands = []
        if self.build_id and len(self.build_id) > 2:
            cands.append('/usr/lib/debug/.build-id/%s/%s.debug' % (self.build_id[:2], self.build_id[2:]))
        if self.debuglink:
            dirn = os.path.dirname(os.path.realpath(self.path))
            cands += [os.path.join(dirn, self.debuglink),
                      os.path.join(dirn, '.debug', self.debuglink),
                      '/usr/lib/debug' + os.path.join(dirn, self.debuglink)]
        for c in cands:
            if os.path.isfile(c) and os.path.realpath(c) != os.path.realpath(self.path):
                return c
        return None

    def vaddr(self, off):
        """The link-time address of file offset OFF, or None."""
        for p_offset, p_filesz, p_vaddr in self.loads:
            if p_offset <= off < p_offset + p_filesz:
                return off - p_offset + p_vaddr
        return None

    def fileoff(self, va):
        """The file offset of link-time address VA, or None."""
        for p_offset, p_filesz, p_vaddr in self.loads:
            if p_vaddr <= va < p_vaddr + p_filesz:
                return va - p_vaddr + p_offset
        return None

    def func_at(self, addr):
        """(start, names) of the function symbol holding ADDR, or None."""
        if self._starts is None:
            self._starts = sorted(self.funcs)
        i = bisect.bisect_right(self._starts, addr) - 1
        # A symbol of size 0 runs to the next one; look back a little for
        # a larger symbol that a smaller one sits inside.
        for j in range(i, max(i - 8, -1), -1):
            st = self._starts[j]
            size, names = self.funcs[st]
            if addr < st + size or (size == 0 and j == i):
                return st, names
        return None

    def fde_at(self, addr):
        """Start of the .eh_frame FDE covering ADDR, or None."""
        if self._fdes is None:
            self._fdes = sorted(self._read_fdes())
            self._fde_starts = [s for s, _ in self._fdes]
        i = bisect.bisect_right(self._fde_starts, addr) - 1
        if i >= 0 and addr < self._fdes[i][1]:
            return self._fdes[i][0]
        return None

    def _read_fdes(self):
        """(start, end) of every FDE: CIEs give the pointer encoding."""
        if not hasattr(self, '_eh_frame'):
            return []
        off, size, sec_addr = self._eh_frame
        d, end, out, cies = self.data, off + size, [], {}
        o = off
        while o + 8 <= end:
            length, = struct.unpack_from('<I', d, o)
            if length == 0:
                break
            hdr = 4
            if length == 0xffffffff:
                length, = struct.unpack_from('<Q', d, o + 4)
                hdr = 12
            body, nxt = o + hdr, o + hdr + length
            if nxt > end:
                break
            cid, = struct.unpack_from('<I', d, body)
            try:
                if cid == 0:
                    cies[body - hdr] = _cie_encoding(d, body + 4, nxt)
                else:
                    enc = cies.get(body - cid)
                    if enc is not None:
                        p = body + 4
                        start, p = _read_enc(d, p, enc, sec_addr + (p - off))
                        rng, p = _read_enc(d, p, enc & 0x0f, 0)
                        if start:
                            out.append((start, start + rng))
            except (struct.error, ValueError, IndexError):
                pass
            o = nxt
        return out


def _leb(d, p, signed=False):
    """A LEB128 number at P, and the offset after it."""
    v = s = 0
    while True:
        b = d[p]
        p += 1
        v |= (b & 0x7f) << s
        s += 7
        if b < 0x80:
            if signed and b & 0x40:
                v -= 1 << s
            return v, p


# The fixed-size DW_EH_PE value formats, as struct formats.
_EH_FIXED = {0x00: '<Q', 0x02: '<H', 0x03: '<I', 0x04: '<Q', 0x0a: '<h', 0x0b: '<i', 0x0c: '<q'}


def _read_enc(d, p, enc, pc):
    """A DW_EH_PE-encoded pointer at P; PC is its own address (pcrel)."""
    fmt = enc & 0x0f
    if fmt in _EH_FIXED:
        v, p = struct.unpack_from(_EH_FIXED[fmt], d, p)[0], p + struct.calcsize(_EH_FIXED[fmt])
    elif fmt == 0x01:
        v, p = _leb(d, p)
    elif fmt == 0x09:
        v, p = _leb(d, p, True)
    else:
        raise ValueError('pointer encoding %#x' % enc)
    if enc & 0x70 == 0x10:
        v += pc
    elif enc & 0x70 not in (0x00,):
        raise ValueError('pointer application %#x' % enc)
    return v & 0xffffffffffffffff, p


def _cie_encoding(d, p, end):
    """The FDE pointer encoding of the CIE whose body (after its id) is at P."""
    version = d[p]
    p += 1
    z = d.find(b'\0', p, end)
    aug = d[p:z].decode('latin-1')
    p = z + 1
    if 'eh' in aug:
        p += 8
    _, p = _leb(d, p)                      # code alignment
    _, p = _leb(d, p, True)                # data alignment
    if version == 1:
        p += 1
    else:
        _, p = _leb(d, p)                  # return address register
    enc = 0x00
    if aug.startswith('z'):
        _, p = _leb(d, p)
        for c in aug[1:]:
            if c == 'R':
                enc = d[p]
                p += 1
            elif c == 'P':
                penc = d[p]
                _, p = _read_enc(d, p + 1, penc & 0x0f, 0)
            elif c == 'L':
                p += 1
            elif c in 'SB':
                pass
            else:
                break
    return enc


# ------------------------------------------------------------ symbols --

class Resolver:
    """Keys of addresses, cached per module file."""

    def __init__(self):
        self.elfs = {}
        self.names = {}          # key -> shown name
        self.aliases = {}        # key -> set of ELF names at that address
        self.glob_names = {}     # key -> those of its names that are global or weak
        self.seen = {}           # key -> {tool: set of names the tool gave}
        for k in (UNKNOWN, KERNEL):
            self.names[k] = k[2]
        self._by_name = {}

    def elf(self, path):
        real = os.path.realpath(path)
        if real not in self.elfs:
            try:
                self.elfs[real] = Elf(real)
            except (OSError, ValueError, struct.error):
                self.elfs[real] = None
        return self.elfs[real]

    def key_by_name(self, module, name):
        k = (module, 'name', name)
        self.names.setdefault(k, name)
        return k

    def key(self, path, file_off, fallback_name=None):
        """The key of file offset FILE_OFF in the module file PATH."""
        module = os.path.basename(os.path.realpath(path)) if path.startswith('/') else path
        e = self.elf(path) if path.startswith('/') else None
        if e is None:
            # A name that is only an address (ctprof's module+0xOFF) is
            # none: perf says [unknown] there.
            if fallback_name and re.match(r'^\S*\+0x[0-9a-f]+$', fallback_name):
                fallback_name = None
            return self.key_by_name(module, fallback_name or '[no symbol]')
        va = e.vaddr(file_off)
        if va is None:
            return self.key_by_name(module, '[not in a segment]')
        # PLT stubs first: a symbol of size 0 just before them (_init)
        # would otherwise take them.
        for lo, hi in e.plts:
            if lo <= va < hi:
                return self.key_by_name(module, module + '@plt')
        f = e.func_at(va)
        if f is not None:
            start, names = f
            k = (module, 'sym', start)
            if k not in self.names:
                self.names[k] = min(n for n, _ in names)
                self.aliases[k] = {n for n, _ in names}
                self.glob_names[k] = {n for n, g in names if g}
            return k
        fs = e.fde_at(va)
        if fs is not None:
            k = (module, 'fde', fs)
            self.names.setdefault(k, '%s+%#x' % (module, fs))
            return k
        return self.key_by_name(module, module + '+[no symbol]')

    def key_of_name(self, path, name):
        """The key of the function NAME in the module file PATH, for a
        tool that gave no usable address."""
        module = os.path.basename(os.path.realpath(path)) if path.startswith('/') else path
        e = self.elf(path) if path.startswith('/') else None
        if e is not None and name:
            if (path, name) not in self._by_name:
                starts = [st for st, (_, names) in e.funcs.items() if any(n == name for n, _ in names)]
                off = e.fileoff(starts[0]) if len(starts) == 1 else None
                self._by_name[path, name] = None if off is None else self.key(path, off)
            if self._by_name[path, name] is not None:
                return self._by_name[path, name]
        return self.key_by_name(module, name or module + '+[no symbol]')

    def note(self, k, tool, name):
        if name:
            self.seen.setdefault(k, {}).setdefault(tool, set()).add(name)

    def matches(self, k, name):
        return name == self.names.get(k) or name in self.aliases.get(k, ())


UNKNOWN = ('', 'name', '[unknown]')
KERNEL = ('', 'name', '[kernel, no user frame]')

# ------------------------------------------------------------- pprof --


def _fields(buf):
    """(field number, wire type, value) of a protobuf message."""
    p, n = 0, len(buf)
    while p < n:
        tag, p = _leb(buf, p)
        fn, wt = tag >> 3, tag & 7
        if wt == 0:
            v, p = _leb(buf, p)
        elif wt == 2:
            ln, p = _leb(buf, p)
            v, p = buf[p:p + ln], p + ln
        elif wt == 1:
            v, p = struct.unpack_from('<Q', buf, p)[0], p + 8
        elif wt == 5:
            v, p = struct.unpack_from('<I', buf, p)[0], p + 4
        else:
            raise ValueError('protobuf wire type %d' % wt)
        yield fn, wt, v


def _ints(wt, v):
    """A repeated integer field, packed or not."""
    if wt == 0:
        return [v]
    out, p = [], 0
    while p < len(v):
        x, p = _leb(v, p)
        out.append(x)
    return out


def read_pprof(path, value_type):
    """[(count, [(mapping filename or None, file offset, [function names])
    leaf first])] of a pprof file; the value is the sample type named
    VALUE_TYPE ('samples' or 'cpu'/'wall' nanoseconds)."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    strings, stypes, samples, maps, locs, funcs = [], [], [], {}, {}, {}
    for fn, wt, v in _fields(raw):
        if fn == 6:
            strings.append(v.decode('utf-8', 'replace'))
        elif fn == 1:
            stypes.append(dict((a, b) for a, _, b in _fields(v)).get(1, 0))
        elif fn == 2:
            s = {1: [], 2: []}
            for a, w, b in _fields(v):
                if a in s:
                    s[a] += _ints(w, b)
            samples.append(s)
        elif fn == 3:
            m = dict((a, b) for a, _, b in _fields(v))
            maps[m.get(1, 0)] = m
        elif fn == 4:
            loc = {1: 0, 2: 0, 3: 0, 4: []}
            for a, _, b in _fields(v):
                if a == 4:
                    loc[4].append(dict((x, y) for x, _, y in _fields(b)).get(1, 0))
                elif a in loc:
                    loc[a] = b
            locs[loc[1]] = loc
        elif fn == 5:
            fnm = dict((a, b) for a, _, b in _fields(v))
            funcs[fnm.get(1, 0)] = fnm.get(2, 0)
    names = [strings[i] if i < len(strings) else '' for i in stypes]
    if value_type in names:
        vi = names.index(value_type)
    elif value_type == 'cpu' and 'wall' in names:
        vi = names.index('wall')
    else:
        raise SystemExit('flatcmp: %s has no sample type %r (it has %s)' % (path, value_type, ', '.join(names)))

    frames = {}
    for lid, loc in locs.items():
        m = maps.get(loc[2])
        fnames = [strings[funcs.get(f, 0)] for f in loc[4] if funcs.get(f, 0) < len(strings)]
        if m is None or not m.get(5):
            frames[lid] = (None, loc[3], fnames)
        else:
            off = loc[3] - m.get(2, 0) + m.get(4, 0)
            frames[lid] = (strings[m[5]], off, fnames)
    # The number of samples each entry stands for: the count type's value.
    ci = names.index('samples') if 'samples' in names else vi
    out = []
    for s in samples:
        if vi < len(s[2]) and s[2][vi]:
            n = s[2][ci] if ci < len(s[2]) else 0
            out.append((s[2][vi], n, [frames.get(i, (None, 0, [])) for i in s[1]]))
    return out


def sampling_noise(shares, n1, n2):
    """The distance two profiles of the same program would have from
    sampling alone, with N1 and N2 samples and true shares SHARES: each
    share's difference is about normal with variance p(1-p)(1/N1 + 1/N2),
    whose mean absolute value is sqrt(2/pi) times its deviation."""
    if not n1 or not n2:
        return 0.0
    k = math.sqrt(2.0 / math.pi) * math.sqrt(1.0 / n1 + 1.0 / n2)
    return 0.5 * sum(k * math.sqrt(p * (1.0 - p)) for p in shares)


def ctprof_profile(path, value_type, res, cums):
    """Self values by key, their total, the values of samples with each
    name of CUMS on their stack, and the number of samples."""
    self_c, total, cum_c, nsamples = {}, 0, {c: 0 for c in cums}, 0
    for count, n, stack in read_pprof(path, value_type):
        total += count
        nsamples += n
        keys = []
        for depth, (mod, off, fnames) in enumerate(stack):
            if mod is None:
                # ctprof's own pseudo-frames ([kernel] waits, [ctprof] at
                # exit) have a name and no module; anything else is unknown.
                k = res.key_by_name('', fnames[-1]) if fnames else UNKNOWN
            else:
                k = res.key(mod, off if depth == 0 else off - 1, fnames[-1] if fnames else None)
            keys.append((k, fnames))
            res.note(k, 'ctprof', fnames[-1] if fnames else None)
        # A kernel-mode sample's [kernel] leaf: the frame above it entered
        # the kernel, and perf's are charged there (perf_profile()).
        if len(keys) > 1 and stack[0][0] is None and keys[0][1] and keys[0][1][-1] == '[kernel]':
            keys = keys[1:]
        if keys:
            self_c[keys[0][0]] = self_c.get(keys[0][0], 0) + count
        for c in cums:
            if any(res.matches(k, c) for k, _ in keys):
                cum_c[c] += count
    return self_c, total, cum_c, nsamples


# -------------------------------------------------------------- perf --

FRAME = re.compile(r'^\s*([0-9a-f]+) (.*) \((.*)\)$')
HEAD = re.compile(r'^\s*(\d+)\s+(\d+)\s*$')
PERF_MAP = re.compile(r'^perf-\d+\.map$')
ONELINE = re.compile(r'^\s*(\d+)\s+(\d+)\s+([0-9a-f]+) (.*) \((.*)\)$')


def perf_samples(lines):
    """(period, [(address, symbol, dso)], has call chain) per sample of
    `perf script -F tid,period,ip,sym,symoff,dso` output."""
    cur = None
    for line in lines:
        line = line.rstrip('\n')
        m = HEAD.match(line)
        if m:
            if cur:
                yield cur
            cur = (int(m.group(2)), [], True)
            continue
        m = ONELINE.match(line)
        if m:
            if cur:
                yield cur
            cur = None
            yield (int(m.group(2)), [(int(m.group(3), 16), m.group(4), m.group(5))], False)
            continue
        m = FRAME.match(line)
        if m and cur:
            cur[1].append((int(m.group(1), 16), m.group(2), m.group(3)))
        elif not line.strip() and cur:
            yield cur
            cur = None
    if cur:
        yield cur


def _perf_sym(sym):
    """perf's 'name+0xoff' as (name, off); (None, 0) for [unknown]."""
    if sym.startswith('[unknown]'):
        return None, 0
    off = 0
    m = re.match(r'^(.*)\+0x([0-9a-f]+)$', sym)
    if m:
        sym, off = m.group(1), int(m.group(2), 16)
    # perf keeps .dynsym's version (cfree@GLIBC_2.2.5); the keys do not.
    return sym.split('@', 1)[0], off


def perf_profile(lines, res, cums):
    self_c, total, cum_c = {}, 0, {c: 0 for c in cums}
    nochain = nsamples = named = disagree = 0
    for period, frames, chain in perf_samples(lines):
        total += period
        nsamples += 1
        user = [f for f in frames if f[0] < KERNEL_START and f[2] != '[kernel.kallsyms]']
        if not chain:
            nochain += 1
        keys = []
        for depth, (addr, sym, dso) in enumerate(user):
            name, _ = _perf_sym(sym)
            if dso == '[unknown]':
                k = UNKNOWN
            elif PERF_MAP.match(os.path.basename(dso)):
                # JIT code named by the runtime's perf map: ctprof's
                # frames there have the name and no module.
                k = res.key_by_name('', name or '[no symbol]')
            elif not chain:
                # One line per sample: the address is the process's, not
                # the file's; only perf's own name can be used.
                k = res.key_of_name(dso, name)
            else:
                k = res.key(dso, addr if depth == 0 else addr - 1, name)
                if depth == 0 and name and k[1] == 'sym':
                    named += 1
                    disagree += not res.matches(k, name)
            res.note(k, 'perf', name)
            keys.append(k)
        if not keys:
            keys = [KERNEL]
        self_c[keys[0]] = self_c.get(keys[0], 0) + period
        for c in cums:
            if any(res.matches(k, c) for k in keys):
                cum_c[c] += period
    if nochain:
        print('flatcmp: %d perf samples without a call chain (record with -g): their kernel time is '
              'not charged to user code, and unnamed code is keyed by module' % nochain, file=sys.stderr)
    if disagree > named / 20:
        # perf script prints a call-chain frame's address relative to its
        # file (a file offset); were it ever the process's address, keys
        # would be wrong, and the names perf gave would show it.
        print('flatcmp: perf named %d of %d leaves differently from the symbol at their address: '
              'the keys of perf samples are not to be trusted' % (disagree, named), file=sys.stderr)
    return self_c, total, cum_c, nsamples


# -------------------------------------------------------------- main --

def perf_data_profile(path, res, cums):
    """perf_profile() of a perf.data file, through perf script."""
    cmd = ['perf', 'script', '-i', path, '-F', 'tid,period,ip,sym,symoff,dso',
           '--no-inline', '--no-demangle']
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, errors='replace')
    out = perf_profile(proc.stdout, res, cums)
    if proc.wait() != 0:
        raise SystemExit('flatcmp: %s failed (status %d)' % (' '.join(cmd), proc.returncode))
    return out


def any_profile(path, value_type, res, cums):
    """The profile in PATH, by what it holds: ctprof's pprof output
    (gzip), a perf.data file, or perf script output.  The first argument
    may be any of these, so that two runs of perf can be compared as
    ctprof's run is, for how far apart the workload's own runs are."""
    with open(path, 'rb') as f:
        head = f.read(8)
    if head[:2] == b'\x1f\x8b':
        return ctprof_profile(path, value_type, res, cums)
    if head == b'PERFILE2':
        return perf_data_profile(path, res, cums)
    with open(path, errors='replace') as f:
        return perf_profile(f, res, cums)


def pooled(profiles):
    """The (self values, total, cum values, samples) of several runs'
    profiles, added up: one profile of all their samples."""
    self_c, total, cum_c, n = {}, 0, {}, 0
    for s, t, c, k in profiles:
        for key, v in s.items():
            self_c[key] = self_c.get(key, 0) + v
        for key, v in c.items():
            cum_c[key] = cum_c.get(key, 0) + v
        total += t
        n += k
    return self_c, total, cum_c, n


def main():
    ap = argparse.ArgumentParser(
        description='Flat self profiles of ctprof and perf by ELF symbol, and their total variation distance.')
    ap.add_argument('ctprof', help="ctprof's pprof output (-o x.pb.gz); several, comma-separated, "
                                   "are added up; or, to compare perf with itself, a perf.data "
                                   "file or perf script output in its place")
    ap.add_argument('perf', nargs='?', help='perf.data from perf record -g; several, comma-separated, '
                                            'are added up')
    ap.add_argument('--perf-script', metavar='FILE',
                    help='perf script output (-F tid,period,ip,sym,symoff,dso --no-inline) instead of PERF')
    ap.add_argument('--value', default='cpu',
                    help="ctprof's sample value: cpu (default: nanoseconds, what its report shows; "
                         "wall for a --wall profile) or samples (counts)")
    ap.add_argument('--min', type=float, default=0.5, help='show keys with at least this %% (default 0.5)')
    ap.add_argument('--top', type=int, default=0, help='show at most this many keys')
    ap.add_argument('--tsv', action='store_true', help='machine-readable output, every key')
    ap.add_argument('--cum', action='append', default=[], metavar='NAME',
                    help='also give the share of samples with function NAME on the stack')
    ap.add_argument('--explain', action='store_true', help="add the names each tool gave each key")
    a = ap.parse_args()
    if not a.perf and not a.perf_script:
        ap.error('give PERF (a perf.data file) or --perf-script FILE')

    res = Resolver()
    c_self, c_total, c_cum, c_n = pooled(any_profile(f, a.value, res, a.cum)
                                         for f in a.ctprof.split(','))
    if a.perf_script:
        with open(a.perf_script, errors='replace') as f:
            p_self, p_total, p_cum, p_n = perf_profile(f, res, a.cum)
    else:
        p_self, p_total, p_cum, p_n = pooled(perf_data_profile(f, res, a.cum)
                                             for f in a.perf.split(','))
    if not c_total:
        raise SystemExit('flatcmp: no samples in %s' % a.ctprof)
    if not p_total:
        raise SystemExit('flatcmp: no samples in the perf data')

    keys = set(c_self) | set(p_self)
    rows = []
    tv = 0.0
    for k in keys:
        c = 100.0 * c_self.get(k, 0) / c_total
        p = 100.0 * p_self.get(k, 0) / p_total
        tv += abs(c - p)
        rows.append((c, p, k))
    rows.sort(key=lambda r: (-max(r[0], r[1]), -r[0], str(r[2])))
    dist = tv / 200.0
    noise = sampling_noise([p / 100.0 for _, p, _ in rows], c_n, p_n)
    seen = res.seen

    def label(k):
        # Of a key's ELF names: a global one without leading underscores,
        # then one that a tool gave, then the shortest.
        if k not in res.aliases:
            return res.names[k]
        plain = [n for n in res.glob_names[k] if not n.startswith('_')]
        if plain:
            return min(plain, key=lambda n: (len(n), n))
        given = set().union(*seen.get(k, {}).values())
        return min(res.aliases[k], key=lambda n: (n.startswith('__GI_'), n not in given, len(n), n))

    def explain(k):
        s = seen.get(k, {})
        return '; '.join('%s: %s' % (t, ', '.join(sorted(s[t]))) for t in ('ctprof', 'perf') if t in s)

    out = sys.stdout
    if a.tsv:
        for c, p, k in rows:
            out.write('%.3f\t%.3f\t%s\t%s%s\n' % (c, p, k[0] or '-', label(k),
                                                   '\t' + explain(k) if a.explain else ''))
        out.write('#distance\t%.6f\n' % dist)
        out.write('#noise\t%.6f\n' % noise)
        out.write('#samples\t%d\t%d\n' % (c_n, p_n))
        for n in a.cum:
            out.write('#cum\t%s\t%.3f\t%.3f\n' % (n, 100.0 * c_cum[n] / c_total, 100.0 * p_cum[n] / p_total))
        return
    shown = [r for r in rows if r[0] >= a.min or r[1] >= a.min]
    if a.top:
        shown = shown[:a.top]
    out.write('%8s %8s  %-36s %s\n' % ('ctprof%', 'perf%', 'function', 'module'))
    for c, p, k in shown:
        out.write('%8.1f %8.1f  %-36s %s\n' % (c, p, label(k), k[0] or '-'))
        if a.explain and explain(k):
            out.write('%18s%s\n' % ('', explain(k)))
    for n in a.cum:
        out.write('cumulative %s: ctprof %.1f%%, perf %.1f%%\n' % (n, 100.0 * c_cum[n] / c_total,
                                                                    100.0 * p_cum[n] / p_total))
    out.write('total variation distance: %.3f\n' % dist)
    out.write('expected from sampling alone (%d and %d samples): %.3f\n' % (c_n, p_n, noise))


if __name__ == '__main__':
    try:
        main()
    except BrokenPipeError:
        sys.exit(1)
