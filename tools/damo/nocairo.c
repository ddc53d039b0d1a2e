// SPDX-License-Identifier: GPL-2.0
/*
 * The image writers of a damo built without cairo (make NO_CAIRO=1, or no
 * cairo found by pkg-config): canvas.c, heatimg.c and plot.c, which need
 * it, are left out of the build, and these take their place.  Every image
 * (report heatmap -o, report wss/nr_regions --plot) fails with the same
 * advice; the terminal heatmap (heatmap.c) needs no cairo and still works.
 */
#include <errno.h>

#include "damo.h"

/* What to do about it. */
static int no_images(const char *path)
{
	damo_err("cannot write %s: this damo was built without cairo, so it draws no images; install libcairo2-dev and rebuild damo (damo report heatmap without -o draws on the terminal)",
		 path);
	return -ENOTSUP;
}

int heatmap_png(const struct heats *h, const char *path, const char *title)
{
	(void)h;
	(void)title;
	return no_images(path);
}

int plot_png(const char *path, const struct plot_series *s, size_t nr,
	     const char *xlabel, const char *ylabel, const char *title)
{
	(void)s;
	(void)nr;
	(void)xlabel;
	(void)ylabel;
	(void)title;
	return no_images(path);
}
