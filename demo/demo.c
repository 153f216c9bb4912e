/* ctprof-demo [SECONDS]: a small workload to try ctprof on.
 *
 *     ctprof -- ctprof-demo            (launch mode)
 *     ctprof-demo & ctprof -p $! -d 2  (attach mode)
 *
 * For SECONDS (default 3) the main thread repeatedly parses a made-up
 * text (parse_input -> tokenize) and digests the words it found
 * (compute -> hash_mix), while one worker thread compresses blocks of
 * data (compress_worker -> compress_block). Every function is noinline so
 * each shows up in the profile under its own name, at its own depth:
 *
 *     main -> parse_input -> tokenize             (about a third of main)
 *     main -> compute -> hash_mix                 (about two thirds of main)
 *     compress_worker -> compress_block           (the worker thread)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEXT_SIZE (64 * 1024)
#define MAX_WORDS (TEXT_SIZE / 2)
#define BLOCK_SIZE (256 * 1024)

/* noinline keeps every function a frame of its own; noclone (GCC) keeps
 * its symbol name plain, with no ".isra.0" or ".constprop.0" suffix. */
#if defined(__GNUC__) && !defined(__clang__)
#define DEMO_FN __attribute__((noinline, noclone))
#else
#define DEMO_FN __attribute__((noinline))
#endif

struct word {
	const char *start;
	size_t len;
};

static volatile int stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Splits text at spaces and punctuation; returns the number of words. */
DEMO_FN static size_t tokenize(const char *text, size_t n,
						  struct word *words)
{
	size_t count = 0, i = 0;

	while (i < n) {
		while (i < n && (text[i] == ' ' || text[i] == ',' || text[i] == '.'))
			i++;
		if (i == n)
			break;
		words[count].start = text + i;
		while (i < n && text[i] != ' ' && text[i] != ',' && text[i] != '.')
			i++;
		words[count].len = (size_t)(text + i - words[count].start);
		count++;
	}
	return count;
}

/* Validates the text (a checksum over it), then tokenizes it. The count
 * is checked after the call, so tokenize is a real callee (not a tail
 * call) and the profile shows it under parse_input. */
DEMO_FN static size_t parse_input(const char *text, size_t n,
				  struct word *words)
{
	unsigned sum = 0;
	size_t count;

	for (size_t i = 0; i < n; i++)
		sum = sum * 31 + (unsigned char)text[i];
	count = tokenize(text, n, words);
	if (count == 0 || sum == 0xdeadbeef)
		fprintf(stderr, "demo: odd input (%zu words)\n", count);
	return count;
}

/* Two rounds of a 64-bit hash over one word. */
DEMO_FN static uint64_t hash_mix(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;

	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < len; i++) {
			h ^= (unsigned char)s[i];
			h *= 0xff51afd7ed558ccdULL;
			h ^= h >> 29;
		}
	return h;
}

/* Digests every word into one value. */
DEMO_FN static uint64_t compute(const struct word *words, size_t count)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < count; i++)
		acc = (acc << 1 | acc >> 63) ^ hash_mix(words[i].start, words[i].len);
	return acc;
}

/* Run-length encodes one block into out; returns the encoded size. */
DEMO_FN static size_t compress_block(const unsigned char *in, size_t n,
						       unsigned char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t run = 1;

		while (i + run < n && run < 255 && in[i + run] == in[i])
			run++;
		out[o++] = (unsigned char)run;
		out[o++] = in[i];
		i += run;
	}
	return o;
}

/* The worker thread: compresses blocks until told to stop. */
DEMO_FN static void *compress_worker(void *arg)
{
	unsigned char *in = malloc(BLOCK_SIZE), *out = malloc(2 * BLOCK_SIZE);
	unsigned long *total = arg;
	uint32_t x = 12345;

	if (!in || !out)
		abort();
	while (!stop) {
		for (size_t i = 0; i < BLOCK_SIZE; i++) {
			x = x * 1103515245 + 12345;
			in[i] = (x >> 28) < 3 ? 'a' : (unsigned char)(x >> 24);
		}
		*total += compress_block(in, BLOCK_SIZE, out);
	}
	free(in);
	free(out);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const vocab[] = {
		"profile", "sample", "stack", "thread", "frame", "symbol",
		"unwind", "ptrace", "report", "function", "module", "cpu",
	};
	double secs = argc > 1 ? strtod(argv[1], NULL) : 3.0;
	double end = now_s() + secs;
	char *text = malloc(TEXT_SIZE);
	struct word *words = malloc(MAX_WORDS * sizeof(*words));
	unsigned long compressed = 0, passes = 0;
	uint64_t digest = 0;
	pthread_t worker;
	size_t n = 0;

	if (!text || !words)
		return 1;
	for (unsigned i = 0; n + 12 < TEXT_SIZE; i++) {
		const char *w = vocab[(i * 7 + i / 5) % (sizeof(vocab) / sizeof(vocab[0]))];

		memcpy(text + n, w, strlen(w));
		n += strlen(w);
		text[n++] = i % 9 == 8 ? '.' : ' ';
	}
	if (pthread_create(&worker, NULL, compress_worker, &compressed) != 0)
		return 1;
	while (now_s() < end) {
		size_t count = parse_input(text, n, words);

		digest += compute(words, count);
		passes++;
	}
	stop = 1;
	pthread_join(worker, NULL);
	printf("ctprof-demo: %lu passes, digest %016llx, %lu bytes compressed\n",
	       passes, (unsigned long long)digest, compressed);
	free(words);
	free(text);
	return 0;
}
