/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the heatmap image (heatimg.c) and the plot (plot.c) draw alike,
 * with cairo: a white canvas with a plot area inside margins, its frame,
 * tick marks and labels, axis titles, and writing the image as PNG, SVG
 * or PDF as the file's name says.  Built only with cairo (nocairo.c
 * stands in for heatmap_png() and plot_png() without it).
 */
#ifndef DAMO_CANVAS_H
#define DAMO_CANVAS_H

#include <cairo.h>
#include <stdio.h>

/* An image's size and the margins around its plot area, in pixels. */
struct layout {
	int w, h;
	int left, right, top, bottom;
};

/* Font sizes: tick labels, axis titles, the image's title. */
#define FONT_TICK	12
#define FONT_AXIS	13
#define FONT_TITLE	15

/* Tick marks are this long; their labels this far from the axis. */
#define TICK_LEN	5
#define TICK_LABEL_GAP	8
/* Ticks reach this far past max, so that rounding does not drop the last. */
#define TICK_SLACK	1e-9

static inline double plot_w(const struct layout *l)
{
	return l->w - l->left - l->right;
}

static inline double plot_h(const struct layout *l)
{
	return l->h - l->top - l->bottom;
}

/* The image types, told from the file name (canvas.c: canvas_type_of). */
enum canvas_type {
	CANVAS_PNG,	/* an image surface, written out at the end */
	CANVAS_SVG,	/* vector surfaces: cairo writes them as we draw */
	CANVAS_PDF,
};

/* A drawing on its way to a file (or to standard output). */
struct canvas {
	cairo_t *cr;
	enum canvas_type type;
	const char *path;	/* as given; DAMO_IMAGE_STDOUT: stdout */
	FILE *f;
};

/*
 * A white canvas of l's size, with the sans-serif font, for path: its
 * type by its extension, the file created.  0, or -EINVAL (an unknown
 * extension) or -EIO (the file cannot be created), said.
 */
int canvas_open(struct canvas *cv, const struct layout *l, const char *path);
/* Finish the image, write what is left of it and free it all; 0, or -EIO
 * with a message (a file that could not be written is removed). */
int canvas_close(struct canvas *cv);

/* s placed by its box: xalign 0 left .. 1 right, yalign 0 top .. 1 bottom. */
void text_at(cairo_t *cr, double x, double y, const char *s, double xalign,
	     double yalign);
/* s turned to run upwards, centred on (x, y). */
void text_up(cairo_t *cr, double x, double y, const char *s);
/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
double nice_step(double span, int n);

/* The plot area's black border. */
void draw_frame(cairo_t *cr, const struct layout *l);
/* About n round values from 0 to max along the bottom, labelled. */
void x_ticks(cairo_t *cr, const struct layout *l, double max, int n);
/* A tick at height y of the left axis, labelled s. */
void y_tick(cairo_t *cr, const struct layout *l, double y, const char *s);
/* The titles of the x axis (below) and the y axis (left, upwards). */
void x_title(cairo_t *cr, const struct layout *l, const char *s);
void y_title(cairo_t *cr, const struct layout *l, const char *s);

#endif /* DAMO_CANVAS_H */
