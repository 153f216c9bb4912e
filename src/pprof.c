/* pprof.c - pprof profiles (Google's profile.proto), written and read.
 *
 * Written as the Go runtime writes CPU profiles: sample types samples/count
 * and cpu/nanoseconds, period type cpu/nanoseconds with period 1e9/F, the
 * time and duration set, one mapping per module (the main executable
 * first) with its build id and has_* flags, one location per distinct
 * address with its inline chain as several lines (innermost first), and
 * the thread (and, from several processes, the process) as labels on each
 * sample.  gzip-compressed with zlib.
 *
 * The reader parses untrusted files: every size is capped, every index and
 * id is checked before use, and anything wrong ends in one line that says
 * what, never in a crash.
 */
#include "output.h"
#include "profile.pb-c.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PPROF_MAX_BYTES (1ULL << 30)          /* decompressed bytes we accept */

/* ---- writing ---- */

struct strtab {
	const char **strs;              /* index -> string; [0] is "" */
	size_t n, cap;
	struct { const char *s; int64_t idx; } *hash;
	size_t hcap;
};

static uint64_t str_hash(const char *s)
{
	return fnv1a(FNV_OFFSET, s, strlen(s));
}

/* The index of S in the string table, added if new; "" and NULL are 0. */
static int64_t strtab_add(struct strtab *t, const char *s)
{
	size_t i;

	if (!s || !*s)
		return 0;
	if ((t->n + 1) * 2 > t->hcap) {
		size_t ncap = t->hcap ? t->hcap * 2 : 1024, k;
		typeof(t->hash) h = xcalloc(ncap, sizeof(*h));

		for (k = 1; k < t->n; k++) {
			for (i = str_hash(t->strs[k]) & (ncap - 1); h[i].s; i = (i + 1) & (ncap - 1))
				;
			h[i].s = t->strs[k];
			h[i].idx = (int64_t)k;
		}
		free(t->hash);
		t->hash = h;
		t->hcap = ncap;
	}
	for (i = str_hash(s) & (t->hcap - 1); t->hash[i].s; i = (i + 1) & (t->hcap - 1))
		if (!strcmp(t->hash[i].s, s))
			return t->hash[i].idx;
	GROW(t->strs, t->cap, t->n + 1);
	t->strs[t->n] = s;
	t->hash[i].s = s;
	t->hash[i].idx = (int64_t)t->n;
	return (int64_t)t->n++;
}

static int write_gzip(FILE *f, const uint8_t *buf, size_t len)
{
	unsigned char out[65536];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer, as pprof expects. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			deflateEnd(&z);
			return -(errno ? errno : EIO);
		}
	} while (ret == Z_OK || (ret == Z_BUF_ERROR && z.avail_out == 0));
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -EIO;
}

/* PREFIX and S in one new string. */
static char *prefixed(const char *prefix, const char *s)
{
	size_t a = strlen(prefix), b = strlen(s);
	char *r = xmalloc(a + b + 1);

	memcpy(r, prefix, a);
	memcpy(r + a, s, b + 1);
	return r;
}

/* The message pprof_write builds and the arrays it points into. */
struct pprof_out {
	Perftools__Profiles__Profile prof;
	struct strtab st;	/* strings must outlive it: literals, the profile's, comment[], foot */
	Perftools__Profiles__ValueType vt[3], *vtp[2];
	Perftools__Profiles__Mapping *maps, **mapp;
	Perftools__Profiles__Function *funcs, **funcp;
	Perftools__Profiles__Location *locs, **locp;
	Perftools__Profiles__Line *lines, **linep;
	Perftools__Profiles__Sample *samples, **samplep;
	Perftools__Profiles__Label *labels, **labelp;
	uint64_t *ids;
	int64_t *values;
	int64_t comments[6];
	char comment[5][300], *foot, *head;
};

/* Sample types samples/count and cpu (or wall)/nanoseconds, the period
 * 1e9/F of the latter, the time and duration. */
static void build_value_types(struct pprof_out *w, const struct profile *p)
{
	Perftools__Profiles__ValueType *vt = w->vt;

	vt[0] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt[0].type = strtab_add(&w->st, ("samples"));
	vt[0].unit = strtab_add(&w->st, ("count"));
	vt[1] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt[1].type = strtab_add(&w->st, (p->wall ? "wall" : "cpu"));
	vt[1].unit = strtab_add(&w->st, ("nanoseconds"));
	vt[2] = vt[1];
	w->vtp[0] = &vt[0];
	w->vtp[1] = &vt[1];
	w->prof.n_sample_type = 2;
	w->prof.sample_type = w->vtp;
	w->prof.period_type = &vt[2];
	w->prof.period = (int64_t)(1000000000ULL / (p->frequency ? p->frequency : 1));
	w->prof.time_nanos = p->time_ns;
	w->prof.duration_nanos = p->duration_ns;
}

/* One mapping per module, with its build id; the has_* flags come with
 * the functions and locations. */
static void build_mappings(struct pprof_out *w, const struct profile *p)
{
	size_t i;

	w->maps = xcalloc(p->nmaps + 1, sizeof(*w->maps));
	w->mapp = xcalloc(p->nmaps + 1, sizeof(*w->mapp));
	for (i = 0; i < p->nmaps; i++) {
		const struct pmap *pm = &p->maps[i];
		Perftools__Profiles__Mapping *m = &w->maps[i];

		*m = (Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		m->id = i + 1;
		m->memory_start = pm->start;
		m->memory_limit = pm->limit;
		m->file_offset = pm->offset;
		m->filename = strtab_add(&w->st, pm->file);
		m->build_id = strtab_add(&w->st, pm->build_id);
		m->has_functions = 1;
		w->mapp[i] = m;
	}
	w->prof.n_mapping = p->nmaps;
	w->prof.mapping = w->mapp;
}

static void build_functions(struct pprof_out *w, const struct profile *p)
{
	size_t i;

	w->funcs = xcalloc(p->nfuncs + 1, sizeof(*w->funcs));
	w->funcp = xcalloc(p->nfuncs + 1, sizeof(*w->funcp));
	for (i = 0; i < p->nfuncs; i++) {
		const struct pfunc *pf = &p->funcs[i];
		Perftools__Profiles__Function *fn = &w->funcs[i];

		*fn = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		fn->id = i + 1;
		fn->name = strtab_add(&w->st, pf->name);
		fn->system_name = strtab_add(&w->st, pf->system_name);
		fn->filename = strtab_add(&w->st, pf->file);
		fn->start_line = pf->line;
		w->funcp[i] = fn;
		if (pf->mapping && pf->file)
			w->maps[pf->mapping - 1].has_filenames = 1;
	}
	w->prof.n_function = p->nfuncs;
	w->prof.function = w->funcp;
}

/* One location per distinct address, its inline chain as its lines. */
static void build_locations(struct pprof_out *w, const struct profile *p)
{
	size_t i;

	w->lines = xcalloc(p->nlines + 1, sizeof(*w->lines));
	w->linep = xcalloc(p->nlines + 1, sizeof(*w->linep));
	for (i = 0; i < p->nlines; i++) {
		w->lines[i] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
		w->lines[i].function_id = p->lines[i].func + 1;
		w->lines[i].line = p->lines[i].line;
		w->linep[i] = &w->lines[i];
	}
	w->locs = xcalloc(p->nlocs + 1, sizeof(*w->locs));
	w->locp = xcalloc(p->nlocs + 1, sizeof(*w->locp));
	for (i = 0; i < p->nlocs; i++) {
		const struct ploc *pl = &p->locs[i];
		Perftools__Profiles__Location *l = &w->locs[i];

		*l = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		l->id = i + 1;
		l->mapping_id = pl->mapping;
		l->address = pl->address;
		l->n_line = pl->nlines;
		l->line = &w->linep[pl->first_line];
		w->locp[i] = l;
		if (pl->mapping) {
			if (pl->nlines > 1)
				w->maps[pl->mapping - 1].has_inline_frames = 1;
			if (pl->nlines && p->lines[pl->first_line].line)
				w->maps[pl->mapping - 1].has_line_numbers = 1;
		}
	}
	w->prof.n_location = p->nlocs;
	w->prof.location = w->locp;
}

/* PS's labels in LB: thread and tid; with PROCS, process and pid too. */
static void build_labels(struct pprof_out *w, const struct profile *p, const struct psample *ps,
			 Perftools__Profiles__Label *lb, bool procs)
{
	const char *tname = profile_thread_name(p, ps->tid);

	lb[0] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
	lb[0].key = strtab_add(&w->st, ("thread"));
	lb[0].str = strtab_add(&w->st, (tname ? tname : "?"));
	lb[1] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
	lb[1].key = strtab_add(&w->st, ("tid"));
	lb[1].num = ps->tid;
	if (procs) {
		const char *pname = profile_process_name(p, ps->pid);

		lb[2] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lb[2].key = strtab_add(&w->st, ("process"));
		lb[2].str = strtab_add(&w->st, (pname ? pname : "?"));
		lb[3] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lb[3].key = strtab_add(&w->st, ("pid"));
		lb[3].num = ps->pid;
	}
}

/* Each sample: its locations, its count and time, its labels. */
static void build_samples(struct pprof_out *w, const struct profile *p)
{
	/* thread and tid; with several processes, process and pid too */
	bool procs = profile_multiprocess(p);
	size_t nl = procs ? 4 : 2;
	size_t i;

	w->samples = xcalloc(p->nsamples + 1, sizeof(*w->samples));
	w->samplep = xcalloc(p->nsamples + 1, sizeof(*w->samplep));
	w->labels = xcalloc(nl * p->nsamples + 1, sizeof(*w->labels));
	w->labelp = xcalloc(nl * p->nsamples + 1, sizeof(*w->labelp));
	w->ids = xcalloc(p->nsample_locs + 1, sizeof(*w->ids));
	w->values = xcalloc(2 * p->nsamples + 1, sizeof(*w->values));
	for (i = 0; i < p->nsamples; i++) {
		const struct psample *ps = &p->samples[i];
		Perftools__Profiles__Sample *s = &w->samples[i];
		uint32_t k;

		*s = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		for (k = 0; k < ps->nlocs; k++)
			w->ids[ps->first_loc + k] = p->sample_locs[ps->first_loc + k] + 1;
		s->n_location_id = ps->nlocs;
		s->location_id = &w->ids[ps->first_loc];
		w->values[2 * i] = (int64_t)ps->count;
		w->values[2 * i + 1] = ps->ns > INT64_MAX ? INT64_MAX : (int64_t)ps->ns;
		s->n_value = 2;
		s->value = &w->values[2 * i];
		build_labels(w, p, ps, &w->labels[nl * i], procs);
		for (k = 0; k < nl; k++)
			w->labelp[nl * i + k] = &w->labels[nl * i + k];
		s->n_label = nl;
		s->label = &w->labelp[nl * i];
		w->samplep[i] = s;
	}
	w->prof.n_sample = p->nsamples;
	w->prof.sample = w->samplep;
}

/* What pprof cannot say by itself, for 'ctprof report' to read back. */
static void build_comments(struct pprof_out *w, const struct profile *p, const struct run_info *ri)
{
	Perftools__Profiles__Profile *prof = &w->prof;

	snprintf(w->comment[0], sizeof(w->comment[0]), "ctprof: pid %d (%s)", p->pid, p->comm ? p->comm : "?");
	snprintf(w->comment[1], sizeof(w->comment[1]), "ctprof: threads %zu",
		 ri ? ri->threads_seen : p->threads_seen ? p->threads_seen : p->nthreads);
	/* The report's last lines: the line of what was lost and the notes. */
	if (ri) {
		char *rf = report_footer(p, ri);

		w->foot = prefixed("ctprof: report: ", rf);
		free(rf);
	} else {
		w->foot = prefixed("ctprof: report: ", p->footer ? p->footer : "");
	}
	w->comments[0] = strtab_add(&w->st, w->comment[0]);
	w->comments[1] = strtab_add(&w->st, w->comment[1]);
	w->comments[2] = strtab_add(&w->st, w->foot);
	prof->n_comment = ri || p->footer ? 3 : 2;
	if (p->cputime) {
		snprintf(w->comment[3], sizeof(w->comment[3]), "ctprof: weight cputime, kernel %llu ns",
			 (unsigned long long)p->kernel_cpu_ns);
		w->comments[prof->n_comment++] = strtab_add(&w->st, w->comment[3]);
	}
	/* The report's first line, where the table is wrong. */
	if (ri ? report_header(ri) != NULL : p->header != NULL) {
		w->head = prefixed("ctprof: header: ", ri ? report_header(ri) : p->header);
		w->comments[prof->n_comment++] = strtab_add(&w->st, w->head);
	}
	if (p->timed_ns) {
		snprintf(w->comment[4], sizeof(w->comment[4]), "ctprof: timed by the kernel, period %llu ns, kernel %s %llu ns",
			 (unsigned long long)p->timed_ns, p->kernel_sampled ? "sampled" : "row",
			 (unsigned long long)p->kernel_row_ns);
		w->comments[prof->n_comment++] = strtab_add(&w->st, w->comment[4]);
	}
	prof->comment = w->comments;
}

/* PROF packed and gzipped into F, flushed: 0 or -errno. */
static int write_packed(FILE *f, const Perftools__Profiles__Profile *prof)
{
	size_t len = perftools__profiles__profile__get_packed_size(prof);
	uint8_t *buf = xmalloc(len);
	int ret;

	perftools__profiles__profile__pack(prof, buf);
	ret = write_gzip(f, buf, len);
	if (ret == 0 && (fflush(f) == EOF || ferror(f)))
		ret = -(errno ? errno : EIO);
	free(buf);
	return ret;
}

static void pprof_out_free(struct pprof_out *w)
{
	free(w->foot);
	free(w->head);
	free(w->st.strs);
	free(w->st.hash);
	free(w->maps);
	free(w->mapp);
	free(w->funcs);
	free(w->funcp);
	free(w->locs);
	free(w->locp);
	free(w->lines);
	free(w->linep);
	free(w->samples);
	free(w->samplep);
	free(w->labels);
	free(w->labelp);
	free(w->ids);
	free(w->values);
}

int pprof_write(FILE *f, const struct profile *p, const struct run_info *ri,
		const struct output_opts *oo)
{
	struct pprof_out w = { .prof = PERFTOOLS__PROFILES__PROFILE__INIT };
	int ret;

	/* pprof's rule: string 0 is the empty string. */
	GROW(w.st.strs, w.st.cap, 1);
	w.st.strs[w.st.n++] = "";
	/* The strings go into the table in this order: keep it, the file's
	 * bytes depend on it. */
	build_value_types(&w, p);
	build_mappings(&w, p);
	build_functions(&w, p);
	build_locations(&w, p);
	build_samples(&w, p);
	build_comments(&w, p, ri);
	w.prof.n_string_table = w.st.n;
	w.prof.string_table = (char **)w.st.strs;
	ret = write_packed(f, &w.prof);
	pprof_out_free(&w);
	return ret;
}

/* ---- reading ---- */

static uint8_t *read_all(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf;
	FILE *f = fopen(path, "rbe");

	if (!f)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		size_t r;

		if (n == cap) {
			if (cap >= PPROF_MAX_BYTES) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		free(buf);
		fclose(f);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Inflate a gzip stream; NULL with *why set if it is not a whole one. */
static uint8_t *gunzip(const uint8_t *in, size_t inlen, size_t *outlen, const char **why)
{
	size_t cap = inlen * 4 + 4096, n = 0;
	uint8_t *out;
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		*why = "cannot start decompressing";
		return NULL;
	}
	out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)inlen;
	for (;;) {
		if (n == cap) {
			if (cap >= PPROF_MAX_BYTES) {
				*why = "decompresses to more than 1 GiB";
				goto fail;
			}
			cap *= 2;
			out = xrealloc(out, cap);
		}
		z.next_out = out + n;
		z.avail_out = (uInt)(cap - n);
		ret = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_BUF_ERROR && z.avail_in == 0) {
			*why = "the gzip data is truncated";
			goto fail;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			*why = "the gzip data is corrupt";
			goto fail;
		}
	}
	inflateEnd(&z);
	*outlen = n;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

static const char *str_at(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return i >= 0 && (uint64_t)i < pr->n_string_table ? pr->string_table[i] : NULL;
}

/* Index of the object with ID in an array sorted by id, or -1. */
#define FIND_ID(arr, n, want, out)                                        \
	do {                                                              \
		size_t lo_ = 0, hi_ = (n);                                \
		(out) = -1;                                               \
		while (lo_ < hi_) {                                       \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;              \
			if ((arr)[mid_]->id < (want))                     \
				lo_ = mid_ + 1;                           \
			else                                              \
				hi_ = mid_;                               \
		}                                                         \
		if (lo_ < (n) && (arr)[lo_]->id == (want))                \
			(out) = (long)lo_;                                \
	} while (0)

static int by_id_map(const void *a, const void *b)
{
	uint64_t x = (*(Perftools__Profiles__Mapping *const *)a)->id, y = (*(Perftools__Profiles__Mapping *const *)b)->id;

	return (x > y) - (x < y);
}

static int by_id_func(const void *a, const void *b)
{
	uint64_t x = (*(Perftools__Profiles__Function *const *)a)->id, y = (*(Perftools__Profiles__Function *const *)b)->id;

	return (x > y) - (x < y);
}

static int by_id_loc(const void *a, const void *b)
{
	uint64_t x = (*(Perftools__Profiles__Location *const *)a)->id, y = (*(Perftools__Profiles__Location *const *)b)->id;

	return (x > y) - (x < y);
}

/* Ids must be non-zero and unique (sorted: no two equal neighbours): in a
 * step of the reader, -1 with r->bad set if they are not. */
#define CHECK_IDS(arr, n, what)                                                   \
	do {                                                                      \
		size_t k_;                                                        \
		for (k_ = 0; k_ < (n); k_++)                                      \
			if (!(arr)[k_]->id || (k_ && (arr)[k_]->id == (arr)[k_ - 1]->id)) { \
				r->bad = what " ids are zero or not unique";       \
				return -1;                                        \
			}                                                         \
	} while (0)

int pprof_read(const char *path, struct profile *p)
{
	size_t rawlen = 0;
	uint8_t *raw = read_all(path, &rawlen);
	int ret;

	if (!raw) {
		error_msg("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = pprof_read_mem(raw, rawlen, path, p);
	free(raw);
	return ret;
}

/* What the steps of reading one profile share.  A step returns 0, or -1
 * with bad set to what makes the profile invalid. */
struct pprof_reader {
	Perftools__Profiles__Profile *pr;
	struct profile *p;
	const char *bad;
	long count_idx, cpu_idx;        /* samples/count, cpu/nanoseconds values; -1: none */
	int64_t period, total_ns;
	uint32_t *loc_of;               /* location index -> profile loc index */
	uint32_t *map_of;               /* mapping index -> profile map (1-based) */
	uint32_t *func_map;             /* function index -> mapping, from its first location */
};

/* The message in RAW, gzipped or not; NULL after saying why there is none. */
static Perftools__Profiles__Profile *pprof_unpack(const uint8_t *raw, size_t rawlen, const char *path)
{
	Perftools__Profiles__Profile *pr;
	const char *bad = NULL;
	uint8_t *data;
	size_t len = 0;

	if (!rawlen) {
		error_msg("cannot read '%s': the file is empty", path);
		return NULL;
	}
	if (rawlen >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
		data = gunzip(raw, rawlen, &len, &bad);
		if (!data) {
			error_msg("cannot read '%s': %s", path, bad);
			return NULL;
		}
		pr = perftools__profiles__profile__unpack(NULL, len, data);
		free(data);
	} else {
		pr = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	}
	if (!pr)
		error_msg("cannot read '%s': not a pprof profile (neither gzip nor a valid profile.proto message)",
			  path);
	return pr;
}

/* The string table's first string, the sample types and the period.  -1
 * also, with bad unset, after saying that it is not a CPU profile. */
static int read_value_types(struct pprof_reader *r, const char *path)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	size_t i;

	/* The validity rules pprof itself enforces. */
	if (!pr->n_string_table || !pr->string_table[0] || pr->string_table[0][0]) {
		r->bad = "its string table does not start with the empty string";
		return -1;
	}
	for (i = 0; i < pr->n_sample_type; i++) {
		const char *type = str_at(pr, pr->sample_type[i]->type);
		const char *unit = str_at(pr, pr->sample_type[i]->unit);

		if (!type || !unit) {
			r->bad = "a sample type names a string out of range";
			return -1;
		}
		if (!strcmp(type, "samples") && !strcmp(unit, "count")) {
			r->count_idx = (long)i;
		} else if ((!strcmp(type, "cpu") || !strcmp(type, "wall")) && !strcmp(unit, "nanoseconds")) {
			r->cpu_idx = (long)i;
			r->p->wall = !strcmp(type, "wall");
		}
	}
	if (r->count_idx < 0 && r->cpu_idx < 0) {
		error_msg("cannot read '%s': it is not a CPU profile (it has no samples/count or cpu/nanoseconds values%s%s)",
			  path, pr->n_sample_type ? "; its first is " : "",
			  pr->n_sample_type ? str_at(pr, pr->sample_type[0]->type) : "");
		return -1;
	}
	if (pr->period_type && str_at(pr, pr->period_type->type) &&
	    (!strcmp(str_at(pr, pr->period_type->type), "cpu") ||
	     !strcmp(str_at(pr, pr->period_type->type), "wall")) &&
	    str_at(pr, pr->period_type->unit) && !strcmp(str_at(pr, pr->period_type->unit), "nanoseconds"))
		r->period = pr->period;
	if (r->count_idx < 0 && r->period <= 0) {
		r->bad = "it has CPU time but no period to turn it into samples";
		return -1;
	}
	return 0;
}

/* Mappings, functions and locations in the order of their ids, for FIND_ID. */
static int sort_by_id(struct pprof_reader *r)
{
	Perftools__Profiles__Profile *pr = r->pr;

	/* A profile may have none of these: their arrays are NULL then. */
	if (pr->n_mapping)
		qsort(pr->mapping, pr->n_mapping, sizeof(*pr->mapping), by_id_map);
	if (pr->n_function)
		qsort(pr->function, pr->n_function, sizeof(*pr->function), by_id_func);
	if (pr->n_location)
		qsort(pr->location, pr->n_location, sizeof(*pr->location), by_id_loc);
	CHECK_IDS(pr->mapping, pr->n_mapping, "mapping");
	CHECK_IDS(pr->function, pr->n_function, "function");
	CHECK_IDS(pr->location, pr->n_location, "location");
	return 0;
}

static int read_mappings(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	struct profile *p = r->p;
	size_t i;

	r->map_of = xcalloc(pr->n_mapping + 1, sizeof(*r->map_of));
	for (i = 0; i < pr->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = pr->mapping[i];
		const char *file = str_at(pr, m->filename), *slash;
		struct pmap *pm;

		if (!file || !str_at(pr, m->build_id)) {
			r->bad = "a mapping names a string out of range";
			return -1;
		}
		GROW(p->maps, p->maps_cap, p->nmaps + 1);
		pm = &p->maps[p->nmaps++];
		memset(pm, 0, sizeof(*pm));
		pm->file = strpool_intern(&p->strings, *file ? file : "?");
		slash = strrchr(pm->file, '/');
		pm->name = strpool_intern(&p->strings, slash ? slash + 1 : pm->file);
		if (*str_at(pr, m->build_id))
			pm->build_id = strpool_intern(&p->strings, str_at(pr, m->build_id));
		pm->start = m->memory_start;
		pm->limit = m->memory_limit;
		pm->offset = m->file_offset;
		r->map_of[i] = (uint32_t)p->nmaps;
	}
	return 0;
}

/* Each function's mapping, that of the first location with it; checks that
 * the mapping and the functions of every location are there. */
static int map_functions(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	size_t i;

	r->func_map = xcalloc(pr->n_function + 1, sizeof(*r->func_map));
	for (i = 0; i < pr->n_location; i++) {
		const Perftools__Profiles__Location *l = pr->location[i];
		long mi = -1;
		size_t k;

		if (l->mapping_id) {
			FIND_ID(pr->mapping, pr->n_mapping, l->mapping_id, mi);
			if (mi < 0) {
				r->bad = "a location names a mapping that is not there";
				return -1;
			}
		}
		for (k = 0; k < l->n_line; k++) {
			long fi;

			FIND_ID(pr->function, pr->n_function, l->line[k]->function_id, fi);
			if (fi < 0) {
				r->bad = "a location names a function that is not there";
				return -1;
			}
			if (!r->func_map[fi] && mi >= 0)
				r->func_map[fi] = r->map_of[mi];
		}
	}
	return 0;
}

/* L's lines, innermost first, each with its function, as PL's. */
static int read_location_lines(struct pprof_reader *r, const Perftools__Profiles__Location *l,
			       struct ploc *pl)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	struct profile *p = r->p;
	size_t k;

	GROW(p->lines, p->lines_cap, p->nlines + l->n_line + 1);
	for (k = 0; k < l->n_line; k++) {
		const Perftools__Profiles__Function *fn;
		const char *name, *file;
		long fi;

		FIND_ID(pr->function, pr->n_function, l->line[k]->function_id, fi);
		fn = pr->function[fi];
		name = str_at(pr, fn->name);
		file = str_at(pr, fn->filename);
		if (!name || !file || !str_at(pr, fn->system_name)) {
			r->bad = "a function names a string out of range";
			return -1;
		}
		if (!*name)
			name = str_at(pr, fn->system_name);
		p->lines[p->nlines].func = profile_add_func(p, *name ? name : "?", *file ? file : NULL,
							    fn->start_line > 0 && fn->start_line < INT32_MAX ? (int)fn->start_line : 0,
							    r->func_map[fi]);
		if (*str_at(pr, fn->system_name))
			p->funcs[p->lines[p->nlines].func].system_name =
				strpool_intern(&p->strings, str_at(pr, fn->system_name));
		p->lines[p->nlines].line = l->line[k]->line > 0 && l->line[k]->line < INT32_MAX ?
					   (int)l->line[k]->line : 0;
		p->nlines++;
		pl->nlines++;
	}
	return 0;
}

/* No symbols: name it by module and address, as a live run does. */
static void name_by_address(struct profile *p, const Perftools__Profiles__Location *l, struct ploc *pl)
{
	char buf[300];

	if (pl->mapping)
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, p->maps[pl->mapping - 1].name,
			 l->address - p->maps[pl->mapping - 1].start + p->maps[pl->mapping - 1].offset);
	else
		snprintf(buf, sizeof(buf), "[anon]+0x%" PRIx64, l->address);
	p->lines[p->nlines].func = profile_add_func(p, buf, NULL, 0, pl->mapping);
	p->lines[p->nlines].line = 0;
	p->nlines++;
	pl->nlines = 1;
}

static int read_locations(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	struct profile *p = r->p;
	size_t i;

	r->loc_of = xcalloc(pr->n_location + 1, sizeof(*r->loc_of));
	for (i = 0; i < pr->n_location; i++) {
		const Perftools__Profiles__Location *l = pr->location[i];
		struct ploc *pl;
		long mi = -1;

		if (l->mapping_id)
			FIND_ID(pr->mapping, pr->n_mapping, l->mapping_id, mi);
		GROW(p->locs, p->locs_cap, p->nlocs + 1);
		pl = &p->locs[p->nlocs];
		pl->address = l->address;
		pl->mapping = mi >= 0 ? r->map_of[mi] : 0;
		pl->first_line = (uint32_t)p->nlines;
		pl->nlines = 0;
		if (read_location_lines(r, l, pl) < 0)
			return -1;
		if (!pl->nlines)
			name_by_address(p, l, pl);
		r->loc_of[i] = (uint32_t)p->nlocs++;
	}
	return 0;
}

/* The count and the time in ns sample S stands for, in range. */
static int sample_weight(struct pprof_reader *r, const Perftools__Profiles__Sample *s,
			 int64_t *count, int64_t *time_ns)
{
	int64_t v, ns;

	if (s->n_value != r->pr->n_sample_type) {
		r->bad = "a sample's values do not match the sample types";
		return -1;
	}
	v = r->count_idx >= 0 ? s->value[r->count_idx] : s->value[r->cpu_idx] / r->period;
	/* 2^40 samples is 350 years at 99 Hz: anything more is garbage,
	 * and sums of it would overflow. */
	if (v < 0 || v > (1LL << 40)) {
		r->bad = "a sample's count is out of range";
		return -1;
	}
	/* The time it stands for: as written (CPU-time weights), or
	 * its count of periods. */
	if (r->cpu_idx >= 0)
		ns = s->value[r->cpu_idx];
	else if (__builtin_mul_overflow(v, r->period > 0 ? r->period : 1000000000, &ns))
		ns = -1;
	if (ns < 0 || ns > (1LL << 55) || (r->total_ns += ns) > (1LL << 62)) {
		r->bad = "a sample's time is out of range";
		return -1;
	}
	*count = v;
	*time_ns = ns;
	return 0;
}

/* The thread and process of PS from S's labels: ids, then names. */
static void read_sample_labels(struct pprof_reader *r, const Perftools__Profiles__Sample *s,
			       struct psample *ps)
{
	size_t k;

	for (k = 0; k < s->n_label; k++) {
		const char *key = str_at(r->pr, s->label[k]->key);

		if (key && !strcmp(key, "tid") && s->label[k]->num > 0 && s->label[k]->num < INT32_MAX)
			ps->tid = (pid_t)s->label[k]->num;
		if (key && !strcmp(key, "pid") && s->label[k]->num > 0 && s->label[k]->num < INT32_MAX)
			ps->pid = (pid_t)s->label[k]->num;
	}
	for (k = 0; k < s->n_label; k++) {
		const char *key = str_at(r->pr, s->label[k]->key);
		const char *val = str_at(r->pr, s->label[k]->str);

		if (key && val && *val && !strcmp(key, "thread"))
			profile_set_thread(r->p, ps->tid, val);
		if (key && val && *val && !strcmp(key, "process") && ps->pid)
			profile_set_process(r->p, ps->pid, val);
	}
}

/* The samples; those with no location are left out of the profile. */
static int read_samples(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	struct profile *p = r->p;
	size_t i;

	for (i = 0; i < pr->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pr->sample[i];
		struct psample *ps;
		int64_t v, ns;
		size_t k;

		if (sample_weight(r, s, &v, &ns) < 0)
			return -1;
		GROW(p->samples, p->samples_cap, p->nsamples + 1);
		ps = &p->samples[p->nsamples];
		ps->count = (uint64_t)v;
		ps->ns = (uint64_t)ns;
		ps->pid = 0;
		ps->tid = 0;
		ps->first_loc = (uint32_t)p->nsample_locs;
		ps->nlocs = 0;
		GROW(p->sample_locs, p->sample_locs_cap, p->nsample_locs + s->n_location_id + 1);
		for (k = 0; k < s->n_location_id; k++) {
			long li;

			FIND_ID(pr->location, pr->n_location, s->location_id[k], li);
			if (li < 0) {
				r->bad = "a sample names a location that is not there";
				return -1;
			}
			p->sample_locs[p->nsample_locs++] = r->loc_of[li];
			ps->nlocs++;
		}
		read_sample_labels(r, s, ps);
		if (ps->nlocs) {
			p->total += ps->count;
			p->nsamples++;
		}
	}
	return 0;
}

/* What pprof_write's comments say of the run; the command is "?" if none does. */
static void read_comments(struct pprof_reader *r)
{
	const Perftools__Profiles__Profile *pr = r->pr;
	struct profile *p = r->p;
	size_t i;

	p->comm = strpool_intern(&p->strings, "?");
	for (i = 0; i < pr->n_comment; i++) {
		const char *c = str_at(pr, pr->comment[i]);
		char comm[64];
		int pid;

		unsigned long threads, timed_kernel;

		if (c && sscanf(c, "ctprof: pid %d (%63[^)])", &pid, comm) == 2) {
			p->pid = pid;
			p->comm = strpool_intern(&p->strings, comm);
		} else if (c && sscanf(c, "ctprof: threads %lu", &threads) == 1) {
			p->threads_seen = threads;
		} else if (c && sscanf(c, "ctprof: weight cputime, kernel %lu ns", &threads) == 1) {
			p->cputime = true;
			p->kernel_cpu_ns = threads;
		} else if (c && sscanf(c, "ctprof: timed by the kernel, period %lu ns, kernel %15s %lu ns",
				       &threads, comm, &timed_kernel) == 3) {
			p->timed_ns = threads;
			p->kernel_sampled = !strcmp(comm, "sampled");
			p->kernel_row_ns = timed_kernel;
		} else if (c && !strncmp(c, "ctprof: header: ", 16) && c[16]) {
			p->header = strpool_intern(&p->strings, c + 16);
		} else if (c && !strncmp(c, "ctprof: report: ", 16) && c[16]) {
			p->footer = strpool_intern(&p->strings, c + 16);
		}
	}
}

int pprof_read_mem(const uint8_t *raw, size_t rawlen, const char *path, struct profile *p)
{
	struct pprof_reader r = { .p = p, .count_idx = -1, .cpu_idx = -1 };
	int ret = -1;

	r.pr = pprof_unpack(raw, rawlen, path);
	if (!r.pr)
		return -1;
	/* Mappings first: locations name them, then locations: samples name them. */
	if (read_value_types(&r, path) < 0 || sort_by_id(&r) < 0 || read_mappings(&r) < 0 ||
	    map_functions(&r) < 0 || read_locations(&r) < 0 || read_samples(&r) < 0) {
		if (r.bad)
			error_msg("cannot read '%s': not a valid profile: %s", path, r.bad);
		goto out;
	}
	p->frequency = r.period > 0 && r.period <= 1000000000 ? (unsigned)((1000000000 + r.period / 2) / r.period) : 1;
	p->time_ns = r.pr->time_nanos;
	p->duration_ns = r.pr->duration_nanos;
	read_comments(&r);
	ret = 0;
out:
	free(r.map_of);
	free(r.func_map);
	free(r.loc_of);
	perftools__profiles__profile__free_unpacked(r.pr, NULL);
	return ret;
}
