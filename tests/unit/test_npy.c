/* test_npy.c - .npy reading and writing, and writing a file whole
 * (fileio.h, which writes them). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "npy.h"

static char tmpdir[] = "/tmp/xr-npy-XXXXXX";

static int setup(void **st)
{
	(void)st;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
	return buf;
}

/* Builds a .npy image by hand: version, header dict, raw data. */
static size_t make_npy(unsigned char *out, int major, const char *dict,
		       const void *data, size_t n)
{
	size_t hl = strlen(dict), off = major == 1 ? 10 : 12;
	memcpy(out, "\x93NUMPY", 6);
	out[6] = (unsigned char)major;
	out[7] = 0;
	out[8] = (unsigned char)(hl & 0xff);
	out[9] = (unsigned char)(hl >> 8);
	if (major > 1)
		out[10] = out[11] = 0;
	memcpy(out + off, dict, hl);
	memcpy(out + off + hl, data, n);
	return off + hl + n;
}

static void round_trips_every_numpy_type(void **st)
{
	(void)st;
	static const Dtype types[] = {DT_PRED, DT_S8,  DT_S16, DT_S32, DT_S64,
				      DT_U8,   DT_U16, DT_U32, DT_U64, DT_F16,
				      DT_F32,  DT_F64, DT_C64, DT_C128};
	for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
		Arena a;
		arena_init(&a);
		Diag d;
		diag_init(&d);
		int64_t dims[] = {2, 3};
		Shape *s = shape_array(&a, types[k], 2, dims);
		Literal *l = literal_new(&a, s);
		literal_fill_pseudo_random(l, 42 + k);
		const char *note = "x";
		assert_true(npy_write(tmp("t.npy"), l, &d, &note));
		assert_null(note);
		Literal *r = npy_read(&a, tmp("t.npy"), &d);
		assert_non_null(r);
		assert_int_equal(r->shape->type, types[k]);
		assert_true(literal_equal(l, r));
		diag_free(&d);
		arena_free(&a);
	}
}

static void reads_big_endian_and_v2_v3(void **st)
{
	(void)st;
	Arena a;
	arena_init(&a);
	Diag d;
	diag_init(&d);
	unsigned char buf[256];
	const unsigned char be[] = {0, 0, 0, 1, 0, 0, 1, 0}; /* >i4: 1, 256 */
	size_t n = make_npy(buf, 1,
			    "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n",
			    be, sizeof be);
	Literal *l = npy_parse(&a, "be.npy", buf, n, &d);
	assert_non_null(l);
	assert_int_equal(literal_get_i64(l, 0), 1);
	assert_int_equal(literal_get_i64(l, 1), 256);
	float f[2] = {1.5f, -2.0f};
	for (int major = 2; major <= 3; major++) {
		n = make_npy(buf, major,
			     "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }\n",
			     f, sizeof f);
		l = npy_parse(&a, "v.npy", buf, n, &d);
		assert_non_null(l);
		assert_int_equal(l->shape->rank, 2);
		assert_true(literal_get_f64(l, 1) == -2.0);
	}
	n = make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n",
		     (double[]){3.25}, 8);
	l = npy_parse(&a, "scalar.npy", buf, n, &d);
	assert_non_null(l);
	assert_int_equal(l->shape->rank, 0);
	assert_true(literal_get_f64(l, 0) == 3.25);
	diag_free(&d);
	arena_free(&a);
}

static void expect_error(const unsigned char *buf, size_t n, const char *text)
{
	Arena a;
	arena_init(&a);
	Diag d;
	diag_init(&d);
	assert_null(npy_parse(&a, "bad.npy", buf, n, &d));
	if (!strstr(diag_text(&d), text))
		print_message("got: %s", diag_text(&d));
	/* the file leads the message; the place is the caller's */
	assert_non_null(strstr(diag_text(&d), "error: bad.npy: "));
	assert_non_null(strstr(diag_text(&d), text));
	diag_free(&d);
	arena_free(&a);
}

static void rejects_bad_files_clearly(void **st)
{
	(void)st;
	unsigned char buf[256];
	float f[4] = {0};
	size_t n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n",
			    f, sizeof f);
	expect_error(buf, n, "Fortran-order");
	n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n",
		     f, 8);
	expect_error(buf, n, "truncated data");
	expect_error((const unsigned char *)"PK\x03\x04", 4, "not a .npy file");
	n = make_npy(buf, 1, "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }\n",
		     f, 12);
	expect_error(buf, n, "unsupported dtype");
	n = make_npy(buf, 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n",
		     f, 4);
	expect_error(buf, n, "structured");
	buf[6] = 9;
	expect_error(buf, n, "unsupported .npy format version 9.0");
	n = make_npy(buf, 1, "{'descr': '<f4'", f, 0);
	buf[8] = 200; /* header longer than the file */
	expect_error(buf, n, "truncated header");
}

static void narrow_types_go_through_float32(void **st)
{
	(void)st;
	Arena a;
	arena_init(&a);
	Diag d;
	diag_init(&d);
	int64_t dims[] = {3};
	Literal *l = literal_new(&a, shape_array(&a, DT_BF16, 1, dims));
	literal_set_f64(l, 0, 0.1);
	literal_set_f64(l, 1, -3);
	literal_set_f64(l, 2, 1e30);
	const char *note = NULL;
	assert_true(npy_write(tmp("b.npy"), l, &d, &note));
	assert_non_null(note);
	assert_non_null(strstr(note, "float32"));
	Literal *r = npy_read(&a, tmp("b.npy"), &d);
	assert_int_equal(r->shape->type, DT_F32);
	Literal *back = literal_convert(&a, r, DT_BF16);
	assert_true(literal_equal(l, back));
	assert_string_equal(npy_dtype_name(DT_F8E4M3FN), "float32");
	assert_string_equal(npy_dtype_name(DT_S4), "int8");
	diag_free(&d);
	arena_free(&a);
}

static void write_fails_cleanly(void **st)
{
	(void)st;
	Arena a;
	arena_init(&a);
	Diag d;
	diag_init(&d);
	Literal *l = literal_new(&a, shape_scalar(&a, DT_F32));
	assert_false(npy_write("/nonexistent-dir/x.npy", l, &d, NULL));
	assert_non_null(strstr(diag_text(&d), "cannot write"));
	diag_free(&d);
	arena_free(&a);
}

static void read_back(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Files in tmpdir whose name starts with prefix. */
static int files_like(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	assert_non_null(d);
	int k = 0;
	for (struct dirent *e; (e = readdir(d));)
		k += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return k;
}

/* Writes "old text" to path, then 8 KiB under a 4 KiB file size limit:
 * the second write fails (EFBIG) and leaves the old text, and no
 * temporary file beside it. */
static void big_write_fails(const char *path)
{
	char got[64];
	assert_true(file_write_whole(path, "old text\n", 9));
	static char big[8192];
	memset(big, 'x', sizeof big);
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	void (*h)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	bool ok = file_write_whole(path, big, sizeof big);
	int e = errno;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, h);
	assert_false(ok);
	assert_int_equal(e, EFBIG);
	read_back(path, got, sizeof got);
	assert_string_equal(got, "old text\n");
	assert_int_equal(files_like(".xr-tmp"), 0);
}

/* A write that fails (here at the file size limit) leaves the old file
 * as it was and no temporary file beside it, also for a name as long as
 * a name may be (the temporary's name cannot be the target's plus a
 * suffix: the old file was emptied and half written in place); one that
 * succeeds replaces it; a device is written in place (not replaced by a
 * file). */
static void files_are_written_whole(void **state)
{
	(void)state;
	char path[128], got[64];
	snprintf(path, sizeof path, "%s/whole.txt", tmpdir);
	big_write_fails(path);
	assert_int_equal(files_like("whole.txt"), 1);

	char lpath[512], name[256];
	memset(name, 'n', 250);
	name[250] = 0;
	snprintf(lpath, sizeof lpath, "%s/%s", tmpdir, name);
	big_write_fails(lpath);
	remove(lpath);

	assert_true(file_write_whole(path, "new\n", 4));
	read_back(path, got, sizeof got);
	assert_string_equal(got, "new\n");
	assert_int_equal(files_like("whole.txt"), 1);

	/* the file keeps its mode; through a link, the file it names is
	 * replaced and the link stays */
	char link[160];
	struct stat st;
	assert_int_equal(chmod(path, 0600), 0);
	snprintf(link, sizeof link, "%s/link.txt", tmpdir);
	assert_int_equal(symlink("whole.txt", link), 0);
	assert_true(file_write_whole(link, "via link\n", 9));
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	read_back(path, got, sizeof got);
	assert_string_equal(got, "via link\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_true(file_write_whole("/dev/null", "x", 1));
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	snprintf(path, sizeof path, "%s/no/such/dir.txt", tmpdir);
	assert_false(file_write_whole(path, "x", 1));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips_every_numpy_type),
		cmocka_unit_test(reads_big_endian_and_v2_v3),
		cmocka_unit_test(rejects_bad_files_clearly),
		cmocka_unit_test(narrow_types_go_through_float32),
		cmocka_unit_test(write_fails_cleanly),
		cmocka_unit_test(files_are_written_whole),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
