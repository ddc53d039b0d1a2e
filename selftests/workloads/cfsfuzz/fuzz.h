/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfsfuzz fuzz: the model of the tree it fuzzes (every attribute, what it
 * must read), its counters, and the operations that fuzz.c draws from.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <limits.h>

#include "cfsfuzz.h"

#define BUF_MAX		8192

/*
 * K_NUM: an unsigned number in [min, max]; K_INT: a signed one (a
 * scheme's target_nid) in [(long)min, (long)max]; K_PID: a target's pid,
 * written as a K_NUM, reads -1 while unset; K_WORD: one of @words
 * (accepted where @word_ok says so), reads the word; K_BOOL: a filter's
 * matching, reads Y or N; K_NAME: a filter's target, any name of up to
 * NAME_MAX bytes, reads it back; K_PATH: a filter's memcg_path, empty or
 * starting with '/', up to a page, reads it back; K_RO: a read-only number
 * (stats, effective_bytes) that no write may change into garbage.
 *
 * A K_NUM that is @unsettled (a quota goal's current_value while the
 * kernel has been measuring the goal's metric into it; sample_us and
 * aggr_us while the running setup may tune them, see intervals_goal/) is
 * still checked for its range after every write and read, but not against
 * the model, which keeps the value written (staged).
 */
enum kind { K_NUM, K_INT, K_PID, K_OPS, K_STATE, K_WORD, K_BOOL, K_NAME,
	    K_PATH, K_RO };

struct attr {
	char path[PATH_MAX];
	const char *name;
	enum kind kind;
	unsigned long min, max;
	const char *const *words;	/* K_WORD */
	const bool *word_ok;
	int nr_words;
	/* the model: what the file must read (numbers; pids; word index) */
	long long model;
	char sval[WRITE_MAX + 1];	/* K_NAME, K_PATH */
	size_t slen;
	bool present;
	bool unsettled;
};

/* A value to write: any bytes. */
struct val {
	char buf[BUF_MAX];
	size_t len;
};

/* The context's attributes, first in attrs[]; A_IG_*: intervals_goal/ */
enum { A_OPS, A_SAMPLE, A_AGGR, A_UPDATE, A_MIN, A_MAX, A_STATE,
	A_T0_PID, A_T1_PID, A_T0R0_START, A_T0R0_END, A_T0R1_START,
	A_T0R1_END, A_T1R0_START, A_T1R0_END, A_IG_BP, A_IG_AGGRS,
	A_IG_MIN, A_IG_MAX, NR_CTX_ATTRS };

#define MAX_ATTRS	128
#define NR_SCHEMES	2
#define MAX_FILTERS	2
#define MAX_GOALS	1

/* Where in attrs[] the files of one filter and of one scheme are. */
struct filter_attrs {
	int type, matching, addr_start, addr_end, target, memcg_path;
};

/* ... and of one quota goal, with the metric the running setup measures
 * for it (-1: none runs). */
struct goal_attrs {
	int metric, target_value, current_value, nid, memcg_path;
	int running_metric;
};

struct scheme_attrs {
	char dir[64];		/* relative to the context */
	int action, apply_interval, target_nid;
	int min_sz, max_sz, min_nr, max_nr, min_age, max_age;
	int ms, bytes, reset, w_sz, w_nr, w_age, esz;
	int metric, wm_interval, high, mid, low;
	int stats[NR_STATS];
	int nr_filters;
	struct filter_attrs filters[MAX_FILTERS];
	int nr_goals;
	struct goal_attrs goals[MAX_GOALS];
};

/* fuzz.c: the tree, as set up by fuzz_setup() */
extern struct attr attrs[MAX_ATTRS];
extern int nr_attrs;
extern struct scheme_attrs schemes[NR_SCHEMES];
extern char ctxdir[512];	/* short enough for every path below */
extern long pid1, pid2;

/* fuzz.c: result counters */
extern unsigned long nr_writes, nr_accepted, nr_state_words, nr_on_ok,
	nr_commit_ok, nr_commit_intr, nr_reads, nr_repairs, nr_dirops,
	nr_scheme_writes, nr_scheme_accepted, nr_stat_checks,
	nr_rmdir_busy, nr_rmdir_on, nr_eperm;
void count_errno(int err);

/*
 * tree.c: the words of the files, and which ones this kernel has: as
 * features lists them, for some operations set (action_ok, ftype_ok) and
 * for each (ops_action_ok, ops_ftype_ok, by ops_names index)
 */
#define NR_OPS		3
#define NR_ACTIONS	10
#define NR_FTYPES	5
#define NR_GOAL_METRICS	8
enum { ACT_STAT = 5, ACT_MIGRATE_HOT = 8, ACT_MIGRATE_COLD = 9 };
enum { FT_MEMCG = 3 };
/* the goal metrics, in configfs-layout.md's order: the node ones (which
 * use nid) from GM_NODE_USED to GM_MEMCG_FREE, the memcg ones (which use
 * memcg_path too) from GM_MEMCG_USED */
enum { GM_USER_INPUT, GM_PSI, GM_NODE_USED, GM_NODE_FREE, GM_MEMCG_USED,
       GM_MEMCG_FREE, GM_ACTIVE, GM_INACTIVE };
extern const char *const ops_names[NR_OPS];
extern bool ops_registered[NR_OPS];
extern const char *const action_names[NR_ACTIONS];
extern bool action_ok[NR_ACTIONS];
extern bool ops_action_ok[NR_OPS][NR_ACTIONS];
extern const char *const metric_names[2];
extern const char *const ftype_names[NR_FTYPES];
extern bool ftype_ok[NR_FTYPES];
extern bool ops_ftype_ok[NR_OPS][NR_FTYPES];
extern const char *const goal_metric_names[NR_GOAL_METRICS];
extern bool goal_metric_ok[NR_GOAL_METRICS];	/* as features lists them */
/* target_nid: -1 .. max_numnodes - 1; mem_node is a node with memory */
extern long max_numnodes, mem_node;
int fuzz_setup(void);

/* values.c */
extern const char *const ctx_words[6];	/* state's, then operations' */
extern const char *const bool_words[];	/* the first 8 are valid */
const char *gen_value_for(struct val *v, const struct attr *a);

/* oracle.c */
int predict_word(const struct val *v, const char *const *names, int nr,
		 const bool *ok, int *alt, unsigned long *num);
void predict_num(const struct val *v, const struct attr *a, int *want,
		 int *alt, long long *num);
void predict_name(const struct val *v, int *want, int *alt, size_t *len);
void predict_path(const struct val *v, int *want, int *alt, size_t *len);
extern const bool bool_value[8];
bool check_readback(struct attr *a, const char *why);
int attr_load(struct attr *a);

/* the operations: writes.c, state.c, reads.c, repair.c, dirs.c */
void fuzz_attr(int i);
bool state_is_on(void);
long kdamond_pid(void);
void state_word(void);
void read_some(void);
void check_stats(const struct scheme_attrs *sa);
void repair(void);
void dir_op(void);
void note_state(int w, int err, bool was_on);
void note_goals(int w, int err, bool was_on);
bool intervals_refused(int w, bool was_on);
void note_intervals(int w, int err, bool was_on);

#endif /* FUZZ_H */
