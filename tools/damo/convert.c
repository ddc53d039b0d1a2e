// SPDX-License-Identifier: GPL-2.0
/*
 * damo convert: a record file, in whichever format, rewritten in another
 * (a seed record for today's damonitor/damo, a JSON one for the seed's
 * scripts).  The output is written to a temporary file beside it and
 * renamed into place, so that converting a file in place loses nothing if
 * it fails.  Its mode is DAMO_RECORD_MODE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damo.h"

static const char convert_usage[] =
"usage: damo convert [-i FILE] [-o FILE] [--format FORMAT]\n"
"\n"
"Rewrite a record file (any format, told from its content) in FORMAT.\n"
"\n"
"  -i, --input FILE     record file (default " DAMO_DEFAULT_RECORD ")\n"
"  -o, --output FILE    where to write (default: the input file itself)\n"
"      --format FORMAT  " REC_FORMAT_NAMES "\n"
"                       (default json_compressed)\n";

/*
 * rec to out, through out.XXXXXX; 0 or -1 (said).  The output has mode
 * DAMO_RECORD_MODE like every record damo writes, whatever the input's:
 * an address layout is no less private for having been converted.
 */
static int write_to(const char *out, const struct record *rec,
		    enum rec_format fmt)
{
	char *tmp = xasprintf("%s.XXXXXX", out);
	int fd, r = 0;
	FILE *f;

	fd = mkstemp(tmp);
	if (fd < 0) {
		damo_err("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		damo_err("cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		r = -1;
	}
	if (!r && rec_write(f, rec, fmt)) {
		damo_err("writing %s: %s", tmp, strerror(errno));
		r = -1;
	}
	if (f && fchmod(fileno(f), DAMO_RECORD_MODE) && !r) {
		damo_err("chmod %s: %s", tmp, strerror(errno));
		r = -1;
	}
	if (f && fclose(f) && !r) {
		damo_err("writing %s: %s", tmp, strerror(errno));
		r = -1;
	}
	if (!r && rename(tmp, out)) {
		damo_err("renaming %s to %s: %s", tmp, out, strerror(errno));
		r = -1;
	}
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}

int cmd_convert(int argc, char **argv)
{
	const char *in = DAMO_DEFAULT_RECORD, *out = NULL;
	enum rec_format fmt = REC_DEFAULT_FORMAT;
	const struct damo_opt opts[] = {
		OPT_STRING('i', "input", &in),
		OPT_STRING('o', "output", &out),
		OPT_CALL(0, "format", &fmt, rec_opt_format),
		OPT_HELP(),
		OPT_END(),
	};
	struct record rec;
	int rc;

	rc = opts_parse(argc, argv, opts, convert_usage, false);
	if (rc != OPTS_GO_ON)
		return rc;
	if (optind < argc) {
		damo_err("unexpected argument '%s'", argv[optind]);
		return 1;
	}
	if (rec_load(in, &rec))
		return 1;
	rc = write_to(out ? out : in, &rec, fmt);
	rec_free(&rec);
	return rc ? 1 : 0;
}
