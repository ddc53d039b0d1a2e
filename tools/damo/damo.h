/* SPDX-License-Identifier: GPL-2.0 */
/*
 * damo: the user-space tool of the DAMON configfs interface.
 *
 * main.c      the command table: dispatch and the usage text
 * cmdline.c   command and option tables: dispatch, usage, getopt
 * record.c    damo record: run or attach a target, write a record file
 * recfile.c   the record file: its formats, detection, the seed's format
 * recjson.c   the record file: damonitor/damo's JSON (and zlib) format
 * json.c      a pull parser of JSON
 * convert.c   damo convert: a record file in another format
 * report.c    damo report raw|heats|wss|nr_regions|heatmap
 * heats.c     the guide and the heats grid of a record
 * heatmap.c   heatmap rendering: PNG (cairo) and terminal
 * plot.c      the wss/nr_regions plot (PNG)
 * canvas.c    what both PNGs draw alike (canvas.h)
 * heatimg.c   the heatmap as an image: PNG, SVG or PDF (cairo); heatmap.c
 *             keeps the colours and the terminal rendering
 * nocairo.c   heatmap_png() and plot_png() of a damo built without cairo
 *             (make NO_CAIRO=1, or no cairo found): an error saying so
 * conf.c      the save/restore file: the tree, parse, print
 * confjson.c  the save/restore file as JSON (save --json): print, parse
 * validate.c  the save/restore file: values and relations
 * save.c      damo save: configfs to a file
 * restore.c   damo restore: a file to configfs
 * clear.c     damo clear: remove the whole configfs tree
 * status.c    damo status: the contexts, targets and schemes, on one screen,
 *             and the estimates of a running context's snapshots
 * proc.c      targets by command line or unit, found in procfs
 * util.c      errors, numbers, files
 */
#ifndef DAMO_H
#define DAMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* damo's version: `damo version`; the man page's .TH line says the same */
#define DAMO_VERSION		"1.1"
#define DAMO_CONFIGFS		"/sys/kernel/config/damon"
#define DAMO_DEFAULT_RECORD	"damon.data"
#define DAMO_DEFAULT_CONF	"/etc/damon/damon.conf"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_SEC		1000000000LL
#define USEC_PER_SEC		1000000ULL
#define NSEC_PER_USEC		1000LL

/* pid_t is an int: the largest pid there can be */
#define DAMO_PID_MAX		INT32_MAX
/* the longest value of a configfs attribute: a page */
#define CFS_ATTR_MAX		4096
/* where processes are looked for */
#define DAMO_PROC		"/proc"
/* directories damo makes: configfs's, and the save file's */
#define DAMO_DIR_MODE		0755

/* ------------------------------------------------------------ util.c */

extern const char *damo_prog;

void damo_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void damo_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t sz);
void *xcalloc(size_t nmemb, size_t sz);
void *xrealloc(void *p, size_t sz);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict decimal: digits only (an optional leading '+'), no overflow. */
int parse_u64(const char *s, uint64_t *v);
/* parse_u64 with an optional '-' instead of the '+', within int64_t. */
int parse_s64(const char *s, int64_t *v);
/* parse_u64 or 0x-prefixed hexadecimal, for addresses on the command line. */
int parse_u64_any(const char *s, uint64_t *v);

/* The configfs root: $DAMO_CONFIGFS, else DAMO_CONFIGFS. */
const char *cfs_root(void);
/* 0 if cfs_root() has a contexts directory, else -1 and a message. */
int cfs_check(void);
/* The words of cfs_root()'s features file, a new string; NULL, said, if
 * it cannot be read. */
char *cfs_features(void);
/* A region of a target's snapshot, as configfs shows it. */
struct snap_region {
	uint64_t start, end;
	uint64_t nr_accesses;	/* samples that found it accessed */
	uint64_t age;		/* aggregation intervals */
};
/* The snapshot file of the target directory target_dir ("START END
 * NR_ACCESSES AGE" a line) into a new array *regions of *nr; 0, -errno of
 * the read (unsaid: -EAGAIN means read again), or -EINVAL after naming
 * the line that is not a region. */
int cfs_read_snapshot(const char *target_dir, struct snap_region **regions,
		      size_t *nr);
/* Whether features (cfs_features()'s text) lists word. */
bool features_have(const char *features, const char *word);
/* Whether configfs's features list word; -1, said, if unreadable. */
int cfs_has_feature(const char *word);
/* Read a small file into buf, without the trailing newline; -errno. */
int read_attr(const char *path, char *buf, size_t size);
/* One write(2) of value; -errno. */
int write_attr(const char *path, const char *value);
/* read_attr() and write_attr() of dir/name, saying what failed. */
int get_attr(const char *dir, const char *name, char *buf, size_t size);
int set_attr(const char *dir, const char *name, const char *value);
/* Read a whole file; -errno.  *buf is NUL-terminated. */
int read_whole(const char *path, char **buf, size_t *len);
/* Names of the subdirectories of dir (no dot entries); -errno. */
int list_dirs(const char *dir, char ***names, size_t *nr);
/* list_dirs() in creation order, of a configfs directory whose order
 * matters (a scheme's filters): configfs lists the newest first. */
int list_dirs_created(const char *dir, char ***names, size_t *nr);
void free_names(char **names, size_t nr);
/* Natural order of directory names: "r2" before "r10". */
int name_cmp(const void *a, const void *b);

/* Where processes and cgroups are looked for: $DAMO_PROC, else DAMO_PROC;
 * $DAMO_CGROUP, else DAMO_CGROUP (stand-in trees, for tests). */
#define DAMO_CGROUP		"/sys/fs/cgroup"
const char *proc_root(void);
const char *cgroup_root(void);

/* What a figure counts, which decides its units. */
enum fig_kind {
	FIG_BYTES,	/* B, KiB, MiB, ... by 1024 */
	FIG_NS,		/* ns, us, ms, s by 1000 */
	FIG_US,		/* the same, from microseconds */
};
/* Room for any figure fmt_fig() writes, the NUL included. */
#define FIG_LEN			32
/*
 * v for people, in the largest unit it reaches: whole if it is whole
 * there, else to a tenth ("12 KiB", "1.5 MiB", "100.0 ms").  raw (the
 * --raw-numbers of the commands): the plain integer, for scripts.
 * Returns buf.
 */
const char *fmt_fig(char buf[FIG_LEN], uint64_t v, enum fig_kind k,
		    bool raw);

/* ------------------------------------------------------------ cmdline.c */

/* A command, or a report type: its name, what runs it, its help line. */
struct damo_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0]: the name */
	const char *help;	/* NULL: not listed; '\n': a further line */
};

/* Commands of one level, and the usage text around their list. */
struct cmd_group {
	const char *what;	/* "command": "unknown command 'x'" */
	const struct damo_cmd *cmds;
	size_t nr;
	const char *head, *foot;
};

#define CMD_GROUP(what, cmds, head, foot) \
	{ what, cmds, ARRAY_SIZE(cmds), head, foot }

void cmd_usage(FILE *f, const struct cmd_group *g);
const struct damo_cmd *cmd_find(const struct cmd_group *g, const char *name);
/* Run the command that argv[1] names; the exit status. */
int cmd_dispatch(const struct cmd_group *g, int argc, char **argv);

enum opt_kind {
	OPTK_END,	/* ends a table */
	OPTK_HELP,	/* the usage to stdout; the command exits 0 */
	OPTK_SET,	/* bool: true */
	OPTK_CLEAR,	/* bool: false */
	OPTK_STRING,	/* const char *: the argument */
	OPTK_U64,	/* uint64_t, by a num_rule */
	OPTK_I64,	/* int64_t, by a num_rule */
	OPTK_INT,	/* int, by a num_rule */
	OPTK_CALL,	/* call() deals with the argument */
};

/* What a number argument may be, and what the error calls a bad one. */
struct num_rule {
	const char *what;	/* "a pid": "--pid: 'x' is not a pid" */
	bool hex;		/* 0x-prefixed hexadecimal too */
	uint64_t min, max;
};

/* One option of a command's table. */
struct damo_opt {
	const char *name;	/* --name */
	int letter;		/* -letter; 0: none */
	enum opt_kind kind;
	void *value;		/* where the value goes */
	bool *given;		/* if not NULL: set once the option is seen */
	const struct num_rule *num;
	const char *label;	/* messages call it this; NULL: --name */
	/* OPTK_CALL: 0, or -errno with the message out; may take more of
	 * argv from optind on */
	int (*call)(const struct damo_opt *o, const char *arg, int argc,
		    char **argv);
};

/*
 * Table entries: l the letter (0: none), n the long name, v where the
 * value goes, of the type the kind stores: OPT_TYPED() makes the compiler
 * check that ("pointer type mismatch" otherwise).
 */
#define OPT_TYPED(v, type)	(1 ? (v) : (type *)NULL)
#define OPT_END()		{ .kind = OPTK_END }
#define OPT_HELP()		{ .name = "help", .letter = 'h', .kind = OPTK_HELP }
#define OPT_SET(l, n, v)	{ .name = n, .letter = l, .kind = OPTK_SET, \
				  .value = OPT_TYPED(v, bool) }
#define OPT_CLEAR(l, n, v)	{ .name = n, .letter = l, .kind = OPTK_CLEAR, \
				  .value = OPT_TYPED(v, bool) }
#define OPT_STRING(l, n, v)	{ .name = n, .letter = l, .kind = OPTK_STRING, \
				  .value = OPT_TYPED(v, const char *) }
/* numbers by a num_rule; seen: a bool set when given, or NULL */
#define OPT_NUM_(l, n, k, v, rule, seen) \
				{ .name = n, .letter = l, .kind = k, \
				  .value = v, .num = rule, .given = seen }
#define OPT_U64(l, n, v, rule, seen) \
	OPT_NUM_(l, n, OPTK_U64, OPT_TYPED(v, uint64_t), rule, seen)
#define OPT_I64(l, n, v, rule, seen) \
	OPT_NUM_(l, n, OPTK_I64, OPT_TYPED(v, int64_t), rule, seen)
#define OPT_INT(l, n, v, rule, seen) \
	OPT_NUM_(l, n, OPTK_INT, OPT_TYPED(v, int), rule, seen)
/* fn gets the entry, whose value is v's, whatever it points to */
#define OPT_CALL(l, n, v, fn)	{ .name = n, .letter = l, .kind = OPTK_CALL, \
				  .value = v, .call = fn }

/* An option as messages name it: its label, or --name. */
const char *opt_label(const struct damo_opt *o);

/* What opts_parse() returns when the command is to go on. */
#define OPTS_GO_ON	(-1)

/*
 * Parse argv's options by the table opts (ended by OPT_END()).  Returns
 * OPTS_GO_ON, the operands starting at argv[optind]; else the command's
 * exit status: 0 after --help, 1 after an error (said, with the usage).
 * in_order: options end at the first operand (whose own options follow).
 */
int opts_parse(int argc, char **argv, const struct damo_opt *opts,
	       const char *usage, bool in_order);
/* At most one operand, into *arg if there is one; else -E2BIG, said. */
int opts_operand(int argc, char **argv, const char *cmd, const char **arg);

/* ------------------------------------------------------------ json.c */

/* What a JSON value is, by its first character. */
enum jp_kind {
	JP_OBJECT, JP_ARRAY, JP_STRING, JP_NUMBER, JP_BOOL, JP_NULL,
	JP_END,		/* no more data */
	JP_BAD,		/* not the start of a value */
};

/* A pull parser over text; the first error goes to err. */
struct jp {
	const char *base, *p, *end;
	int depth;
	bool first;		/* no member or element read yet */
	bool failed;
	char *err;
	size_t errlen;
};

void jp_init(struct jp *j, const char *text, size_t len, char *err,
	     size_t errlen);
/* Say what is wrong at the current offset; returns -1. */
int jp_fail(struct jp *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
enum jp_kind jp_peek(struct jp *j);
const char *jp_kind_name(enum jp_kind k);
/* Enter an object or an array (kind JP_OBJECT or JP_ARRAY); 0 or -1. */
int jp_begin(struct jp *j, enum jp_kind kind);
/* The next member (its name into key; "" if longer than len - 1) or
 * element: 1, then read or skip its value; 0 at the closing bracket
 * (consumed); -1 on an error. */
int jp_next_key(struct jp *j, char *key, size_t len);
int jp_next_item(struct jp *j);
/* Scalars into buf (NUL-terminated; too long: an error); buf NULL: skip.
 * A number's text is its JSON spelling.  0 or -1. */
int jp_string(struct jp *j, char *buf, size_t len);
int jp_number(struct jp *j, char *buf, size_t len);
/* 1 if the value is null (consumed), 0 if it is something else, -1. */
int jp_null(struct jp *j);
int jp_skip(struct jp *j);
/* Nothing but white space is left: 0, else -1. */
int jp_finish(struct jp *j);

/* Writing JSON: s as a JSON string (quotes and escapes); "key": */
void json_put_str(FILE *f, const char *s);
void json_put_key(FILE *f, const char *key);

/* ------------------------------------------------------------ recfile.c */

struct rec_region {
	uint64_t start;
	uint64_t end;
	uint32_t nr_accesses;
};

struct rec_task {
	uint64_t pid;
	uint32_t nr_regions;
	struct rec_region *regions;
	/*
	 * When the aggregation this snapshot ends began (ns).  The seed's
	 * format has no room for it: read from one, it is the previous
	 * snapshot's time (the first snapshot: its own, covering nothing).
	 */
	int64_t start_ns;
};

struct rec_snapshot {
	int64_t time_ns;	/* sec * 10^9 + nsec: when it ended */
	uint32_t nr_tasks;
	struct rec_task *tasks;
};

/* The file formats (Documentation/record-format.md). */
enum rec_format {
	REC_JSON_COMPRESSED,	/* damonitor/damo's JSON, zlib-compressed */
	REC_JSON,		/* damonitor/damo's JSON list of records */
	REC_SEED,		/* the seed's packed binary snapshots */
};

#define REC_DEFAULT_FORMAT	REC_JSON_COMPRESSED
/* "json_compressed|json|seed", for usage texts */
#define REC_FORMAT_NAMES	"json_compressed|json|seed"

struct record {
	size_t nr_snapshots;
	struct rec_snapshot *snapshots;
	/* Set by rec_parse: bytes of an incomplete last snapshot (dropped). */
	size_t truncated_bytes;
	enum rec_format format;		/* what it was read from */
	/* the monitoring intervals (us), if the file says */
	bool has_intervals;
	uint64_t sample_us, aggr_us, update_us;
};

const char *rec_format_name(enum rec_format f);
/* A --format argument: 0, or -EINVAL. */
int rec_format_parse(const char *name, enum rec_format *f);
/* The --format option's handler (OPT_CALL): a rec_format at o->value. */
int rec_opt_format(const struct damo_opt *o, const char *arg, int argc,
		   char **argv);
/* The pids of @rec in order of appearance, in a new array; how many. */
size_t rec_pids(const struct record *rec, uint64_t **pidsp);
/* The seed's format only; in the other byte order: -EINVAL, said. */
int rec_parse(const unsigned char *buf, size_t len, struct record *rec,
	      char *errbuf, size_t errlen);
/* Any format, told from the content; a record with no snapshots (an
 * empty file, a seed record cut inside its first snapshot, JSON without
 * snapshots) is an error too, said in errbuf. */
int rec_parse_any(const unsigned char *buf, size_t len, struct record *rec,
		  char *errbuf, size_t errlen);
int rec_load(const char *path, struct record *rec);
void rec_free(struct record *rec);
int rec_write_snapshot(FILE *f, const struct rec_snapshot *s);
/* A whole record in a format; 0 or -errno (-EIO: see errno). */
int rec_write(FILE *f, const struct record *rec, enum rec_format fmt);
/* Append a copy of s (its tasks and regions) to rec. */
void rec_append(struct record *rec, const struct rec_snapshot *s);

/* ------------------------------------------------------------ recjson.c */

/* Whether buf starts like zlib data (RFC 1950 header). */
bool rec_is_zlib(const unsigned char *buf, size_t len);
/* Inflate zlib data into *out (NUL-terminated); 0 or -EINVAL, said. */
int rec_inflate(const unsigned char *buf, size_t len, char **out,
		size_t *outlen, char *err, size_t errlen);
int rec_parse_json(const char *text, size_t len, struct record *rec,
		   char *err, size_t errlen);
int rec_write_json(FILE *f, const struct record *rec, bool compress);

/* ------------------------------------------------------------ report.c, heats.c */

int cmd_report(int argc, char **argv);

/* The heats grid (the seed's "heats" report). */
struct heats {
	uint64_t pid;
	int64_t tmin, tunit;		/* ns */
	uint64_t amin, aunit;		/* bytes */
	int tres, ares;
	double *heat;			/* [t * ares + a] accesses/aggr */
	double max_heat;
};

struct heats_args {
	bool has_pid, has_tmin, has_tmax, has_amin, has_amax;
	uint64_t pid;
	int64_t tmin, tmax;
	uint64_t amin, amax;
	int tres, ares;
};

/* Guide information for one pid. */
struct guide {
	uint64_t pid;
	int64_t start_time, end_time;
	size_t nr_ranges;
	uint64_t (*ranges)[2];		/* monitored ranges, address order */
};

int guides_of(const struct record *rec, struct guide **guides, size_t *nr);
void guides_free(struct guide *guides, size_t nr);
int heats_compute(const struct record *rec, struct heats_args *args,
		  struct heats *h);
void heats_free(struct heats *h);

/* ------------------------------------------------------------ heatmap.c, plot.c */

int heatmap_png(const struct heats *h, const char *path, const char *title);

/* One line of a plot: n points (x[i], y[i]) of a target. */
struct plot_series {
	uint64_t pid;
	size_t n;
	double *x, *y;
};

int plot_png(const char *path, const struct plot_series *s, size_t nr,
	     const char *xlabel, const char *ylabel, const char *title);
void heatmap_term(FILE *out, const struct heats *h, bool color);
/* heatmap_term(): a row's address label is this wide, then " |" */
#define HEATMAP_LABEL_WIDTH	14
#define HEATMAP_TERM_LEFT	(HEATMAP_LABEL_WIDTH + 2)
/* its number of rows (address bins) when a terminal decides */
#define HEATMAP_TERM_ARES	20

/*
 * Images (heatimg.c, plot.c, canvas.c): the type is the file name's
 * extension, one of DAMO_IMAGE_TYPES, and DAMO_IMAGE_STDOUT writes a PNG to
 * standard output.  Built without cairo (DAMO_NO_CAIRO), heatmap_png() and
 * plot_png() only say so and fail.
 */
#define DAMO_IMAGE_TYPES	".png, .svg or .pdf"
#define DAMO_IMAGE_STDOUT	"-"
#define IMAGE_TO_STDOUT(path)	((path)[0] == '-' && !(path)[1])

/* A heat v in [0, 1] (0: none, 1: the hottest cell) as red, green and
 * blue in [0, 1]: the terminal and the image show the same colours. */
#define HEAT_NR_RGB		3
void heat_color(double v, double rgb[HEAT_NR_RGB]);
/* A cell's heat relative to the hottest, in [0, 1]. */
double heat_level(const struct heats *h, int t, int a);
/* The seconds the grid spans. */
double heats_secs(const struct heats *h);

/* ------------------------------------------------------------ record.c */

int cmd_record(int argc, char **argv);
/* Record files (damo record, damo convert) have this mode, whatever the
 * umask: like the kernel's snapshot files (0400 under 0600 directories),
 * they reveal the address layout of the processes recorded. */
#define DAMO_RECORD_MODE	0600

/* ------------------------------------------------------------ conf.c */

enum conf_kind {
	CK_ROOT,
	CK_CONTEXT,
	CK_INTERVALS,		/* a context's intervals_goal (auto-tuning) */
	CK_TARGET,
	CK_REGION,
	CK_SCHEME,
	CK_PATTERN,
	CK_QUOTAS,
	CK_WMARKS,
	CK_FILTER,
	CK_GOAL,		/* a quota goal, in quotas */
	NR_CONF_KINDS,
};

struct conf_attr {
	char *key;
	char *value;
	int line;
};

struct conf_node {
	enum conf_kind kind;
	char *name;			/* NULL for unnamed groups */
	int line;
	struct conf_attr *attrs;
	size_t nr_attrs;
	struct conf_node **children;
	size_t nr_children;
};

/* The configfs directory and file name of a kind (the keyword in files). */
const char *conf_kind_keyword(enum conf_kind k);
const char *conf_kind_dir(enum conf_kind k);
/* The attributes of a kind that save writes, in file order. */
const char *const *conf_kind_attrs(enum conf_kind k);

struct conf_node *conf_new(enum conf_kind kind, const char *name, int line);
void conf_free(struct conf_node *n);
struct conf_node *conf_add_child(struct conf_node *parent,
				 enum conf_kind kind, const char *name,
				 int line);
void conf_set(struct conf_node *n, const char *key, const char *value,
	      int line);
const char *conf_get(const struct conf_node *n, const char *key);
const struct conf_attr *conf_get_attr(const struct conf_node *n,
				      const char *key);

#define CONF_ERR_PREFIX		"line "
/* CONF_ERR_PREFIX "N: message" into err (the convention of conf_parse and
 * conf_validate). */
void conf_seterr(char *err, size_t len, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A directory name: what configfs and the file syntax both allow. */
bool conf_valid_name(const char *s);
/* Whether a kind's blocks have names; key is an attribute of kind k;
 * a block of kind child may be inside one of kind parent. */
bool conf_kind_named(enum conf_kind k);
bool conf_is_attr(enum conf_kind k, const char *key);
bool conf_child_allowed(enum conf_kind parent, enum conf_kind child);
/* n's first child of kind k (named name; any name if name is NULL). */
const struct conf_node *conf_find_child(const struct conf_node *n,
					enum conf_kind k, const char *name);
/*
 * The value that leaves an attribute unused if it is one that older
 * kernels lack (target_nid: "-1", memcg_path: ""), else NULL.  save leaves
 * such attributes out when configfs lacks them or they are unused, and
 * restore does not write them unused, so that a setup that does not use
 * them saves and restores on any kernel.
 */
const char *conf_attr_unused(enum conf_kind k, const char *key);
/* Whether an attribute's value is a number (validate.c's rules). */
bool conf_attr_numeric(enum conf_kind k, const char *key);
/* Whether a scheme's action moves memory to its target_nid. */
bool conf_action_migrates(const char *action);
/*
 * Quota goals: the metric of goal n (its target_metric, or the kernel's
 * default, user_input); whether a metric's current_value is the user's
 * input (user_input), which save keeps, rather than the kernel's last
 * measurement, which it leaves out; whether a metric is of a node (uses
 * nid) and of a cgroup (uses memcg_path too).
 */
const char *conf_goal_metric(const struct conf_node *n);
bool conf_goal_metric_is_input(const char *metric);
bool conf_goal_metric_per_node(const char *metric);
bool conf_goal_metric_per_memcg(const char *metric);
/*
 * A context's intervals_goal group: whether g (a CK_INTERVALS node) asks
 * for more than the kernel's defaults (access_bp 0, aggrs 3, min_sample_us
 * 5000, max_sample_us 10000000; an attribute left out is at its default),
 * which is when save writes it; and whether it turns tuning on (access_bp
 * other than 0).
 */
bool conf_intervals_set(const struct conf_node *g);
bool conf_intervals_tune(const struct conf_node *g);

/* Parse text; on error, fills err ("LINE: message") and returns -1. */
struct conf_node *conf_parse(const char *text, char *err, size_t errlen);
/* Validate values and relations; same error convention. */
int conf_validate(const struct conf_node *root, char *err, size_t errlen);
void conf_print(FILE *f, const struct conf_node *root);
char *conf_to_string(const struct conf_node *root);

/* The same tree as JSON (save --json; its schema is in damo.1). */
void conf_print_json(FILE *f, const struct conf_node *root);
char *conf_to_json(const struct conf_node *root);
/* Whether text is the JSON form: its first non-blank character is '{'
 * (which no line of the text form starts with). */
bool conf_is_json(const char *text);
/* Parse the JSON form; errors as conf_parse()'s ("line N: ..."). */
struct conf_node *conf_parse_json(const char *text, size_t len, char *err,
				  size_t errlen);

/* ------------------------------------------------------------ save.c etc. */

int cmd_save(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* p0, p10, ..., p100 */
#define NR_IDLE_PERCENTILES	11
#define IDLE_PERCENTILE_STEP	10

/* What status estimates from a context's latest snapshots. */
struct access_stats {
	/* bytes per second: the sum over regions of size * nr_accesses /
	 * (aggr_us / sample_us), per aggr_us */
	uint64_t bandwidth;
	/* idle_us[i]: the least idle time (age * aggr_us for a region
	 * without accesses, 0 for one with) that at least i * 10 % of the
	 * bytes do not exceed */
	uint64_t idle_us[NR_IDLE_PERCENTILES];
};

/* The access_stats of nr regions (any order) at those intervals; 0, or
 * -1 when the regions hold no bytes. */
int access_stats(const struct snap_region *r, size_t nr, uint64_t sample_us,
		 uint64_t aggr_us, struct access_stats *st);

/* ------------------------------------------------------------ proc.c */

/* /proc/PID/cmdline with spaces between the arguments; NULL if unreadable. */
char *proc_cmdline(const char *proc_root, const char *pid);
/* Resolve a target's "command" or "unit" to a pid, looking in procfs at
 * proc_root; 0 or -errno (-ESRCH: none, -EEXIST: ambiguous). */
int resolve_command(const char *proc_root, const char *cmdline, long *pid);
int resolve_unit(const char *proc_root, const char *unit, long *pid);
/* The systemd unit (.service or .scope) whose cgroup holds pid, from
 * proc_root/PID/cgroup; NULL if none. */
char *proc_unit(const char *proc_root, const char *pid);
/* A unit's main process: systemd's MainPID (systemctl, or
 * $DAMO_SYSTEMCTL; "" for none), else the first process of its cgroup
 * under cgroup_root(), else, without a cgroup tree, resolve_unit() in
 * proc_root(); 0 or -errno (-ESRCH: the unit is not running). */
int unit_main_pid(const char *unit, long *pid);
/* unit with ".service" added if it has no suffix; a new string. */
char *unit_full_name(const char *unit);

#endif /* DAMO_H */
