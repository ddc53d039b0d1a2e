// SPDX-License-Identifier: GPL-2.0
/* damo: record, report, save, restore and clear DAMON through configfs. */
#include <unistd.h>

#include "damo.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct damo_cmd commands[] = {
	{ "record", cmd_record, "monitor a process and write a record file" },
	{ "report", cmd_report,
	  "report a record: raw, heats, wss, nr_regions, heatmap" },
	{ "convert", cmd_convert,
	  "rewrite a record file in another format" },
	{ "save", cmd_save, "write the whole configfs tree to a file" },
	{ "restore", cmd_restore, "rebuild the configfs tree from a file" },
	{ "clear", cmd_clear, "turn everything off and remove the whole tree" },
	{ "status", cmd_status,
	  "the contexts, targets and schemes, on one screen" },
	{ "version", cmd_version, "print damo's version" },
	/* not listed: other spellings of --help and of version */
	{ "help", cmd_help, NULL },
	{ "--version", cmd_version, NULL },
	{ "-V", cmd_version, NULL },
};

static const char damo_head[] =
"usage: damo COMMAND [OPTIONS]\n"
"\n"
"The user-space tool of DAMON's configfs interface (" DAMO_CONFIGFS ").\n"
"\n"
"commands:\n";

static const char damo_foot[] =
"\n"
"Run `damo COMMAND --help` for a command's options; man damo for more.\n";

static const struct cmd_group damo =
	CMD_GROUP("command", commands, damo_head, damo_foot);

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_usage(stdout, &damo);
	return 0;
}

static const char version_usage[] =
"usage: damo version\n"
"\n"
"Print damo's version (also `damo --version` and `damo -V`).\n";

static int cmd_version(int argc, char **argv)
{
	const struct damo_opt opts[] = { OPT_HELP(), OPT_END() };
	int r;

	r = opts_parse(argc, argv, opts, version_usage, false);
	if (r != OPTS_GO_ON)
		return r;
	if (optind < argc) {
		damo_err("version takes no arguments");
		return 1;
	}
	printf("damo %s\n", DAMO_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	return cmd_dispatch(&damo, argc, argv);
}
