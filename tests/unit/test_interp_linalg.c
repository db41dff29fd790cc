/* test_interp_linalg.c - dot, convolution and fft beyond the golden
 * files: dot over several dimension-number layouts and a 1-D convolution
 * sweep (stride, padding, both dilations, reversal, feature and batch
 * groups), each against a rule written out here in another form (the
 * convolution over an explicitly dilated and padded input); fft round
 * trips; interruption of long products. */
#include <math.h>

#include "testutil.h"

/* dot of lhs s32[2,3,4] and rhs s32[4,2,3] in several layouts: out index
 * (batch, lhs free, rhs free) against a sum over all lhs/rhs index pairs
 * that agree on the batch and contracting dimensions. */
static void test_dot_layouts(void **state)
{
	(void)state;
	static const struct {
		const char *lb, *rb, *lc, *rc, *out;
	} cases[] = {
		{"", "", "2", "0", "s32[2,3,2,3]"},
		{"0", "1", "2", "0", "s32[2,3,3]"},
		{"0", "1", "1,2", "2,0", "s32[2]"},
		{"", "", "1", "2", "s32[2,4,4,2]"},
		{"", "", "", "", "s32[2,3,4,4,2,3]"},
		{"0,1", "1,2", "2", "0", "s32[2,3]"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "HloModule m\nENTRY e {\n  a = s32[2,3,4] "
			 "parameter(0)\n"
			 "  b = s32[4,2,3] parameter(1)\n"
			 "  ROOT d = %s dot(a, b), lhs_batch_dims={%s}, "
			 "rhs_batch_dims={%s}, lhs_contracting_dims={%s}, "
			 "rhs_contracting_dims={%s}\n}\n",
			 cases[c].out, cases[c].lb, cases[c].rb, cases[c].lc,
			 cases[c].rc);
		Run r;
		run_init(&r, text);
		for (int i = 0; i < 24; i++) {
			literal_set_i64(r.args[0], i, i % 7 - 3);
			literal_set_i64(r.args[1], i, i % 5 - 2);
		}
		Literal *res = run_ok(&r);
		const HloInstr *d = r.m->entry->root;
		int nlb, nlc;
		const int64_t *lb = hlo_attr_ints(d, A_LHS_BATCH_DIMS, &nlb);
		const int64_t *rb = hlo_attr_ints(d, A_RHS_BATCH_DIMS, &nlb);
		const int64_t *lc =
			hlo_attr_ints(d, A_LHS_CONTRACTING_DIMS, &nlc);
		const int64_t *rc =
			hlo_attr_ints(d, A_RHS_CONTRACTING_DIMS, &nlc);
		int64_t *want = calloc((size_t)res->n, sizeof *want);
		static const int ld[3] = {2, 3, 4}, rdm[3] = {4, 2, 3};
		for (int i = 0; i < 24; i++)
			for (int j = 0; j < 24; j++) {
				int li[3] = {i / 12, i / 4 % 3, i % 4};
				int ri[3] = {j / 6, j / 3 % 2, j % 3};
				bool match = true;
				for (int k = 0; k < nlb; k++)
					match &= li[lb[k]] == ri[rb[k]];
				for (int k = 0; k < nlc; k++)
					match &= li[lc[k]] == ri[rc[k]];
				if (!match)
					continue;
				int64_t o = 0;
				for (int k = 0; k < nlb; k++)
					o = o * ld[lb[k]] + li[lb[k]];
				for (int dd = 0; dd < 3; dd++) {
					bool free_ = true;
					for (int k = 0; k < nlb; k++)
						free_ &= lb[k] != dd;
					for (int k = 0; k < nlc; k++)
						free_ &= lc[k] != dd;
					if (free_)
						o = o * ld[dd] + li[dd];
				}
				for (int dd = 0; dd < 3; dd++) {
					bool free_ = true;
					for (int k = 0; k < nlb; k++)
						free_ &= rb[k] != dd;
					for (int k = 0; k < nlc; k++)
						free_ &= rc[k] != dd;
					if (free_)
						o = o * rdm[dd] + ri[dd];
				}
				want[o] += (i % 7 - 3) * (j % 5 - 2);
			}
		for (int64_t o = 0; o < res->n; o++)
			if (literal_get_i64(res, o) != want[o])
				fail_msg("%s: out[%lld] = %lld, want %lld",
					 text, (long long)o,
					 (long long)literal_get_i64(res, o),
					 (long long)want[o]);
		free(want);
		run_free(&r);
	}
}

/* A convolution case: groups, stride, padding, dilations, reversal. */
typedef struct ConvCase {
	int fgc, bgc, stride, lo, hi, ld, rd, rev;
} ConvCase;

static int x_at(int i) { return (i * 13) % 11 - 5; }
static int k_at(int i) { return (i * 7) % 5 - 2; }

/* 1-D convolution (bf0_oi0->bf0) against a reference over the input
 * dilated by lhs_dilate (zeros between elements) and padded (negative
 * padding crops), with the kernel taps rhs_dilate apart: out[b][o][p] =
 * sum over taps t and group inputs i of
 *   padded[b + bgroup(o) * B/bgc][fgroup(o) * I + i][p * stride + t * rd]
 *   * k[o][i][reversal ? K-1-t : t].
 * false when the padding leaves nothing (no such case). */
static bool conv_case(const ConvCase *c)
{
	int B = 2 * c->bgc, F = 2 * c->fgc, N = 4, O = 2 * c->fgc * c->bgc;
	int I = F / c->fgc, K = 2, OB = B / c->bgc;
	int dil = (N - 1) * c->ld + 1, plen = dil + c->lo + c->hi;
	int win = (K - 1) * c->rd + 1;
	if (plen < 0)
		return false;
	int P = plen >= win ? (plen - win) / c->stride + 1 : 0;
	char text[1024];
	snprintf(text, sizeof text,
		 "HloModule m\nENTRY e {\n  x = s32[%d,%d,%d] parameter(0)\n"
		 "  k = s32[%d,%d,%d] parameter(1)\n"
		 "  ROOT c = s32[%d,%d,%d] convolution(x, k), window={size=%d "
		 "stride=%d pad=%d_%d lhs_dilate=%d rhs_dilate=%d "
		 "rhs_reversal=%d}, dim_labels=bf0_oi0->bf0, "
		 "feature_group_count=%d, batch_group_count=%d\n}\n",
		 B, F, N, O, I, K, OB, O, P, K, c->stride, c->lo, c->hi, c->ld,
		 c->rd, c->rev, c->fgc, c->bgc);
	Run r;
	run_init(&r, text);
	for (int i = 0; i < B * F * N; i++)
		literal_set_i64(r.args[0], i, x_at(i));
	for (int i = 0; i < O * I * K; i++)
		literal_set_i64(r.args[1], i, k_at(i));
	Literal *res = run_ok(&r);
	int padded[8][4][16] = {{{0}}};
	for (int b = 0; b < B; b++)
		for (int f = 0; f < F; f++)
			for (int j = 0; j < plen; j++) {
				int q = j - c->lo; /* into the dilated input */
				if (q >= 0 && q < dil && q % c->ld == 0)
					padded[b][f][j] = x_at((b * F + f) * N +
							       q / c->ld);
			}
	for (int b = 0; b < OB; b++)
		for (int o = 0; o < O; o++)
			for (int p = 0; p < P; p++) {
				int fg = o / (O / c->fgc),
				    bg = o / (O / c->bgc);
				int64_t want = 0;
				for (int t = 0; t < K; t++)
					for (int i = 0; i < I; i++) {
						int kt = c->rev ? K - 1 - t : t;
						int j = p * c->stride +
							t * c->rd;
						want += (int64_t)padded[b +
									bg * OB]
								       [fg * I +
									i][j] *
							k_at((o * I + i) * K +
							     kt);
					}
				int64_t got = literal_get_i64(
					res, (b * O + o) * P + p);
				if (got != want)
					fail_msg("%s: out[%d][%d][%d] = %lld, "
						 "want %lld",
						 text, b, o, p, (long long)got,
						 (long long)want);
			}
	run_free(&r);
	return true;
}

/* The convolution sweep: no groups, feature groups, batch groups; every
 * stride, padding, dilation and reversal combination below. */
static void test_conv_sweep(void **state)
{
	(void)state;
	int cases = 0;
	static const int groups[][2] = {{1, 1}, {2, 1}, {1, 2}};
	for (int g = 0; g < 3; g++)
		for (int stride = 1; stride <= 2; stride++)
			for (int pad = 0; pad < 12; pad++)
				for (int m = 0; m < 8; m++) {
					ConvCase c = {
						groups[g][0],  groups[g][1],
						stride,        pad / 3 - 1,
						pad % 3 - 1,   m / 4 + 1,
						m / 2 % 2 + 1, m % 2};
					cases += conv_case(&c);
				}
	assert_true(cases > 200);
}

/* fft then ifft, and rfft then irfft, give the input back (n = 1..9);
 * rfft equals the first n/2+1 values of fft. */
static void test_fft_round_trips(void **state)
{
	(void)state;
	for (int n = 1; n <= 9; n++) {
		char text[1024];
		int h = n / 2 + 1;
		snprintf(
			text, sizeof text,
			"HloModule m\nENTRY e {\n  x = c128[%d] parameter(0)\n"
			"  y = f64[%d] parameter(1)\n"
			"  f = c128[%d] fft(x), fft_type=FFT, fft_length={%d}\n"
			"  i = c128[%d] fft(f), fft_type=IFFT, "
			"fft_length={%d}\n"
			"  r = c128[%d] fft(y), fft_type=RFFT, "
			"fft_length={%d}\n"
			"  ri = f64[%d] fft(r), fft_type=IRFFT, "
			"fft_length={%d}\n"
			"  yc = c128[%d] convert(y)\n"
			"  yf = c128[%d] fft(yc), fft_type=FFT, "
			"fft_length={%d}\n"
			"  ROOT t = (c128[%d], f64[%d], c128[%d], c128[%d]) "
			"tuple(i, ri, r, yf)\n}\n",
			n, n, n, n, n, n, h, n, n, n, n, n, n, n, n, h, n);
		Run r;
		run_init(&r, text);
		for (int i = 0; i < n; i++) {
			literal_set_c(r.args[0], i, i * 0.5 - 1, 3 - i);
			literal_set_f64(r.args[1], i, (i * 5) % 7 - 3);
		}
		Literal *res = run_ok(&r);
		for (int i = 0; i < n; i++) {
			double re, im, wre, wim;
			literal_get_c(res->tuple[0], i, &re, &im);
			literal_get_c(r.args[0], i, &wre, &wim);
			assert_true(fabs(re - wre) < 1e-12 &&
				    fabs(im - wim) < 1e-12);
			assert_true(fabs(literal_get_f64(res->tuple[1], i) -
					 literal_get_f64(r.args[1], i)) <
				    1e-12);
		}
		for (int i = 0; i < h; i++) {
			double re, im, wre, wim;
			literal_get_c(res->tuple[2], i, &re, &im);
			literal_get_c(res->tuple[3], i, &wre, &wim);
			assert_true(fabs(re - wre) < 1e-12 &&
				    fabs(im - wim) < 1e-12);
		}
		run_free(&r);
	}
}

/* Long dots and convolutions stop when interrupted. */
static void test_interrupted(void **state)
{
	(void)state;
	static const char *texts[] = {
		"HloModule m\nENTRY e {\n  a = f32[256,256] parameter(0)\n"
		"  b = f32[256,256] parameter(1)\n"
		"  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n}\n",
		"HloModule m\nENTRY e {\n  x = f32[1,64,64,32] parameter(0)\n"
		"  k = f32[3,3,32,32] parameter(1)\n"
		"  ROOT c = f32[1,64,64,32] convolution(x, k), "
		"window={size=3x3 pad=1_1x1_1}, "
		"dim_labels=b01f_01io->b01f\n}\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		assert_interrupted(texts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot_layouts),
		cmocka_unit_test(test_conv_sweep),
		cmocka_unit_test(test_fft_round_trips),
		cmocka_unit_test(test_interrupted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
