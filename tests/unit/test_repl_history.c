/* test_repl_history.c - the session's history of module versions is
 * exact: over corpus modules, running the default pipeline and then
 * undoing every step gives back byte for byte the text `save` wrote
 * before (and redoing gives back every later version); a new step after
 * undo drops the redo tail; the history is capped.
 *
 * Drives a Session directly through cmd_execute, as a script would. */
#include "testutil.h" /* first: it includes cmocka.h after its needs */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "passes/pass.h"
#include "print.h"
#include "session.h"

enum { NMODULES = 20, MAX_BYTES = 200000 };

static FILE *devnull;

/* What `save` would write. */
static char *saved_text(const Session *s)
{
	StrBuf b;
	sb_init(&b);
	print_module(&b, s->mod, &print_opts_default);
	assert_false(b.oom);
	return sb_take(&b);
}

static void session(Session *s)
{
	repl_session_init(s, devnull, devnull);
	s->src_name = "test";
}

static void check_text(Session *s, const char *want, const char *path,
		       const char *what, int k)
{
	char *t = saved_text(s);
	if (strcmp(t, want) != 0)
		fail_msg("%s: %s to step %d is not exact", path, what, k);
	free(t);
}

/* Applies the default pipeline's passes one command at a time (keeping
 * what `save` would write after each), then walks the whole history
 * back and forth checking each version's text; then runs `pipeline`
 * as one command and undoes it. */
static int changed_modules; /* where the pipeline changed the text */

/* False when the module does not load here (not this test's concern). */
static bool check_module(const char *path)
{
	Session s;
	session(&s);
	if (!repl_load_path(&s, path)) {
		repl_session_free(&s);
		return false;
	}
	int np;
	const char *const *names = pipeline_find("default", &np);
	assert_non_null(names);
	char **text = calloc((size_t)np + 1, sizeof *text);
	text[0] = saved_text(&s);
	for (int k = 1; k <= np; k++) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "pass %s", names[k - 1]);
		if (!cmd_execute(&s, cmd))
			fail_msg("%s failed on %s", cmd, path);
		text[k] = saved_text(&s);
	}
	for (int k = np - 1; k >= 0; k--) {
		assert_true(cmd_execute(&s, "undo"));
		check_text(&s, text[k], path, "undo", k);
	}
	assert_false(cmd_execute(&s, "undo"));
	for (int k = 1; k <= np; k++) {
		assert_true(cmd_execute(&s, "redo"));
		check_text(&s, text[k], path, "redo", k);
	}
	assert_false(cmd_execute(&s, "redo"));
	if (!cmd_execute(&s, "pipeline"))
		fail_msg("pipeline failed on %s", path);
	assert_int_equal(s.nhist, 2 * np + 1);
	for (int k = 0; k < np; k++)
		assert_true(cmd_execute(&s, "undo"));
	check_text(&s, text[np], path, "undo", np);
	/* The same passes as one command from step 0: only its last step
	 * keeps a module; the others, made again by replay on the way
	 * back, are the versions the one-at-a-time commands made. */
	for (int k = 0; k < np; k++)
		assert_true(cmd_execute(&s, "undo"));
	if (!cmd_execute(&s, "pipeline"))
		fail_msg("pipeline failed on %s", path);
	assert_int_equal(s.nhist, np + 1);
	for (int k = 1; k < np; k++)
		assert_null(s.hist[k].mod);
	check_text(&s, text[np], path, "pipeline", np);
	/* Asking for a middle step first makes it and the ones before it;
	 * the next is then replayed from a step that was itself replayed. */
	char diff[64];
	snprintf(diff, sizeof diff, "diff %d %d", np / 2, np / 2 + 1);
	assert_true(cmd_execute(&s, diff));
	for (int k = 1; k <= np / 2 + 1; k++)
		assert_non_null(s.hist[k].mod);
	for (int k = np - 1; k >= 0; k--) {
		assert_true(cmd_execute(&s, "undo"));
		check_text(&s, text[k], path, "replayed undo", k);
	}
	for (int k = 1; k <= np; k++) {
		assert_true(cmd_execute(&s, "redo"));
		check_text(&s, text[k], path, "redo", k);
	}
	changed_modules += strcmp(text[0], text[np]) != 0;
	for (int k = 0; k <= np; k++)
		free(text[k]);
	free(text);
	repl_session_free(&s);
	return true;
}

/* Corpus files from INDEX.tsv: small ones, spread over the index. */
static void corpus_undo_all_is_exact(void **state)
{
	(void)state;
	FILE *f = corpus_index_open();
	if (!f)
		skip();
	/* XR_HISTORY_MODULES=N checks N modules, every file in the index
	 * (not every 7th) when N is over NMODULES. */
	const char *env = getenv("XR_HISTORY_MODULES");
	int want = env && atoi(env) > 0 ? atoi(env) : NMODULES;
	int every = want > NMODULES ? 1 : 7;
	char line[8192];
	int seen = 0, done = 0;
	while (done < want && fgets(line, sizeof line, f)) {
		if (seen++ == 0 || seen % every != 0)
			continue; /* the header; then every 7th file */
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		char path[8192 + 4096];
		snprintf(path, sizeof path, "%s/%s", XR_CORPUS_DIR, line);
		FILE *h = fopen(path, "rb");
		if (!h)
			continue;
		fseek(h, 0, SEEK_END);
		long size = ftell(h);
		fclose(h);
		if (size > MAX_BYTES)
			continue;
		done += check_module(path);
	}
	fclose(f);
	if (want == NMODULES)
		assert_int_equal(done, NMODULES);
	print_message("%d of %d modules changed\n", changed_modules, done);
	assert_true(changed_modules > 0);
}

static void new_step_after_undo_drops_redo(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[2] parameter(0)", 23, 1));
	assert_true(repl_add_instr(&s, "a = negate(p)", 13, 2));
	assert_int_equal(s.nhist, 3);
	assert_true(cmd_execute(&s, "undo"));
	assert_true(cmd_execute(&s, "undo"));
	assert_int_equal(s.hist_cur, 0);
	assert_true(repl_add_instr(&s, "q = f32[3] parameter(0)", 23, 3));
	assert_int_equal(s.nhist, 2);
	assert_false(cmd_execute(&s, "redo"));
	assert_string_equal(repl_history_step(&s, 1)->label,
			    "q = f32[3] parameter(0)");
	assert_non_null(repl_find_instr(s.mod, "q"));
	assert_null(repl_find_instr(s.mod, "p"));
	repl_session_free(&s);
}

/* A failing command adds no step. */
static void failures_leave_history_alone(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[2] parameter(0)", 23, 1));
	assert_false(cmd_execute(&s, "pass dce no-such-pass"));
	assert_false(cmd_execute(&s, "pipeline no-such-pipeline"));
	assert_false(repl_add_instr(&s, "a = negate(zz)", 14, 2));
	assert_false(cmd_execute(&s, "load /no/such/file.hlo"));
	assert_int_equal(s.nhist, 2);
	assert_int_equal(s.hist_cur, 1);
	repl_session_free(&s);
}

static void history_is_capped(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[2] parameter(0)", 23, 1));
	for (int i = 0; i < REPL_HISTORY_MAX + 50; i++)
		assert_true(cmd_execute(&s, "pass dce"));
	/* 2 + 250 steps made, the first 52 dropped. */
	assert_int_equal(s.nhist, REPL_HISTORY_MAX);
	assert_int_equal(s.hist_dropped, 52);
	assert_null(repl_history_step(&s, 51));
	assert_non_null(repl_history_step(&s, 52));
	for (int i = 0; i < REPL_HISTORY_MAX - 1; i++)
		assert_true(cmd_execute(&s, "undo"));
	assert_false(cmd_execute(&s, "undo"));
	assert_false(cmd_execute(&s, "diff 3"));
	assert_true(cmd_execute(&s, "history"));
	repl_session_free(&s);
}

/* One command cannot make more steps than the history keeps: refused,
 * nothing changes; one fewer is taken and keeps the cap. */
static void too_many_passes_in_one_command(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[2] parameter(0)", 23, 1));
	char *cmd = malloc(8 * REPL_HISTORY_MAX + 16);
	strcpy(cmd, "pass");
	for (int i = 0; i < REPL_HISTORY_MAX; i++)
		strcat(cmd, " dce");
	int before = s.nhist;
	assert_false(cmd_execute(&s, cmd));
	assert_int_equal(s.nhist, before);
	cmd[strlen(cmd) - 4] = 0; /* REPL_HISTORY_MAX - 1 passes */
	assert_true(cmd_execute(&s, cmd));
	assert_int_equal(s.nhist, REPL_HISTORY_MAX);
	assert_non_null(s.hist[0].mod);
	free(cmd);
	repl_session_free(&s);
}

/* A replayed step runs its pass with the options it first ran with, not
 * the session's options now. */
static void replay_keeps_options(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[4] parameter(0)", 23, 1));
	assert_true(repl_add_instr(&s, "a = f32[4] negate(p)", 20, 2));
	assert_true(repl_add_instr(&s, "e = f32[4] exponential(a)", 25, 3));
	assert_true(cmd_execute(&s, "set fusion off"));
	assert_true(cmd_execute(&s, "pipeline"));
	assert_true(cmd_execute(&s, "set fusion on"));
	/* back to the fusion pass's step: made again, still without
	 * fusions */
	assert_true(cmd_execute(&s, "undo"));
	assert_string_equal(s.hist[s.hist_cur].label,
			    "pass fusion (pipeline default)");
	char *t = saved_text(&s);
	assert_null(strstr(t, "fusion("));
	free(t);
	/* the same pass now, with fusion on, does fuse */
	assert_true(cmd_execute(&s, "pass fusion"));
	t = saved_text(&s);
	assert_non_null(strstr(t, "fusion("));
	free(t);
	repl_session_free(&s);
}

/* Pipelines past the cap: the oldest step kept is one a pipeline made
 * without keeping its module, so it is made again before the step it
 * replays from is dropped; walking back to it and forth again gives the
 * same versions. */
static void capped_history_keeps_replay_base(void **state)
{
	(void)state;
	Session s;
	session(&s);
	assert_true(cmd_execute(&s, "new m"));
	assert_true(repl_add_instr(&s, "p = f32[4] parameter(0)", 23, 1));
	assert_true(repl_add_instr(&s, "z = f32[] constant(0)", 21, 2));
	assert_true(repl_add_instr(
		&s, "b = f32[4] broadcast(z), dimensions={}", 38, 3));
	assert_true(repl_add_instr(&s, "a = f32[4] add(p, b)", 20, 4));
	assert_true(repl_add_instr(&s, "e = f32[4] exponential(a)", 25, 5));
	int np;
	assert_non_null(pipeline_find("default", &np));
	int runs = REPL_HISTORY_MAX / np + 3;
	for (int i = 0; i < runs; i++)
		assert_true(cmd_execute(&s, "pipeline"));
	assert_int_equal(s.nhist, REPL_HISTORY_MAX);
	/* The oldest is a pipeline's first pass (made again), the next
	 * one still keeps nothing. */
	assert_int_equal((s.hist_dropped - 6) % np, 0); /* 6: new, 5 lines */
	assert_non_null(s.hist[0].pass);
	assert_non_null(s.hist[0].mod);
	assert_null(s.hist[1].mod);
	char **text = calloc(REPL_HISTORY_MAX, sizeof *text);
	for (int k = s.nhist - 1; k >= 0; k--) {
		text[k] = saved_text(&s);
		if (k)
			assert_true(cmd_execute(&s, "undo"));
	}
	assert_false(cmd_execute(&s, "undo"));
	for (int k = 1; k < s.nhist; k++) {
		assert_true(cmd_execute(&s, "redo"));
		check_text(&s, text[k], "capped", "redo", k);
	}
	for (int k = 0; k < REPL_HISTORY_MAX; k++)
		free(text[k]);
	free(text);
	repl_session_free(&s);
}

int main(void)
{
	devnull = fopen("/dev/null", "w");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(corpus_undo_all_is_exact),
		cmocka_unit_test(new_step_after_undo_drops_redo),
		cmocka_unit_test(failures_leave_history_alone),
		cmocka_unit_test(history_is_capped),
		cmocka_unit_test(capped_history_keeps_replay_base),
		cmocka_unit_test(replay_keeps_options),
		cmocka_unit_test(too_many_passes_in_one_command),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	fclose(devnull);
	return r;
}
