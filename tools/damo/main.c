// SPDX-License-Identifier: GPL-2.0
/* damo: record, report, save, restore and clear DAMON through configfs. */
#include <getopt.h>
#include <string.h>

#include "damo.h"

static const char usage[] =
"usage: damo COMMAND [OPTIONS]\n"
"\n"
"The user-space tool of DAMON's configfs interface (" DAMO_CONFIGFS ").\n"
"\n"
"commands:\n"
"  record    monitor a process and write a record file\n"
"  report    report a record: raw, heats, wss, nr_regions, heatmap\n"
"  save      write the whole configfs tree to a file\n"
"  restore   rebuild the configfs tree from a file\n"
"  clear     turn everything off and remove the whole tree\n"
"\n"
"Run `damo COMMAND --help` for a command's options; man damo for more.\n";

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		fputs(usage, stderr);
		return 1;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("damo %s\n", DAMO_VERSION);
		return 0;
	}
	argc--;
	argv++;
	optind = 1;
	if (!strcmp(cmd, "record"))
		return cmd_record(argc, argv);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc, argv);
	if (!strcmp(cmd, "save"))
		return cmd_save(argc, argv);
	if (!strcmp(cmd, "restore"))
		return cmd_restore(argc, argv);
	if (!strcmp(cmd, "clear"))
		return cmd_clear(argc, argv);
	damo_err("unknown command '%s'", cmd);
	fputs(usage, stderr);
	return 1;
}
