/* libcallback.so: a function that calls back into its caller's program, so
 * that a stack holds a return address into the library (see loadwin.c). */
void lib_call(void (*fn)(double), double secs);

volatile int lib_call_sink;

__attribute__((noinline)) void lib_call(void (*fn)(double), double secs)
{
	fn(secs);
	lib_call_sink++;        /* not a tail call: the frame stays */
}
