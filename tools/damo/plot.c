// SPDX-License-Identifier: GPL-2.0
/*
 * A line plot of the wss or nr_regions distribution (the seed's --plot):
 * one line with points per target, x and y axes from 0 to their maximum;
 * PNG, SVG or PDF by the file's name (canvas.c).
 */
#include <math.h>
#include <stdio.h>

#include "canvas.h"
#include "damo.h"

static const struct layout plot_layout = {
	.w = 800, .h = 500, .left = 110, .right = 30, .top = 50, .bottom = 70,
};

/* Targets' lines take these colours in turn. */
static const double colors[][3] = {
	{ 0.12, 0.35, 0.70 }, { 0.85, 0.33, 0.10 },
	{ 0.20, 0.60, 0.20 }, { 0.55, 0.25, 0.65 },
};

/* About this many ticks on the axes. */
#define X_TICKS			10
#define Y_TICKS			8
/* The axes' ends when nothing is above 0: percent, and one. */
#define EMPTY_XMAX		100
#define EMPTY_YMAX		1
#define LINE_WIDTH		2
#define POINT_RADIUS		3
/* Each pid's legend line, from the plot area's top left corner. */
#define LEGEND_LEFT		10
#define LEGEND_TOP		12
#define LEGEND_LINE		16
#define TITLE_TOP		20

static void series_max(const struct plot_series *s, size_t nr, double *xmax,
		       double *ymax)
{
	size_t i, k;

	*xmax = 0;
	*ymax = 0;
	for (i = 0; i < nr; i++)
		for (k = 0; k < s[i].n; k++) {
			if (s[i].x[k] > *xmax)
				*xmax = s[i].x[k];
			if (s[i].y[k] > *ymax)
				*ymax = s[i].y[k];
		}
	if (*xmax <= 0)
		*xmax = EMPTY_XMAX;
	if (*ymax <= 0)
		*ymax = EMPTY_YMAX;
}

static void y_ticks(cairo_t *cr, const struct layout *l, double ymax)
{
	double step = nice_step(ymax, Y_TICKS), v;
	const double ph = plot_h(l);
	char buf[32];

	for (v = 0; v <= ymax * (1 + TICK_SLACK); v += step) {
		snprintf(buf, sizeof(buf), "%.4g", v);
		y_tick(cr, l, l->top + ph - ph * v / ymax, buf);
	}
}

/* Series i: its line, its points and its legend entry. */
static void draw_series(cairo_t *cr, const struct layout *l,
			const struct plot_series *s, size_t i, double xmax,
			double ymax)
{
	const double *c = colors[i % ARRAY_SIZE(colors)];
	const double pw = plot_w(l), ph = plot_h(l);
	double x, y;
	char buf[32];
	size_t k;

	cairo_set_source_rgb(cr, c[0], c[1], c[2]);
	for (k = 0; k < s->n; k++) {
		x = l->left + pw * s->x[k] / xmax;
		y = l->top + ph - ph * s->y[k] / ymax;
		if (k)
			cairo_line_to(cr, x, y);
		else
			cairo_move_to(cr, x, y);
	}
	cairo_stroke(cr);
	for (k = 0; k < s->n; k++) {
		cairo_arc(cr, l->left + pw * s->x[k] / xmax,
			  l->top + ph - ph * s->y[k] / ymax, POINT_RADIUS, 0,
			  2 * M_PI);
		cairo_fill(cr);
	}
	snprintf(buf, sizeof(buf), "pid %llu", (unsigned long long)s->pid);
	text_at(cr, l->left + LEGEND_LEFT, l->top + LEGEND_TOP + LEGEND_LINE * i,
		buf, 0, 0.5);
}

int plot_png(const char *path, const struct plot_series *s, size_t nr,
	     const char *xlabel, const char *ylabel, const char *title)
{
	const struct layout *l = &plot_layout;
	double xmax, ymax;
	struct canvas cv;
	cairo_t *cr;
	size_t i;
	int r;

	series_max(s, nr, &xmax, &ymax);
	r = canvas_open(&cv, l, path);
	if (r)
		return r;
	cr = cv.cr;
	draw_frame(cr, l);
	cairo_set_font_size(cr, FONT_TICK);
	x_ticks(cr, l, xmax, X_TICKS);
	y_ticks(cr, l, ymax);
	x_title(cr, l, xlabel);
	y_title(cr, l, ylabel);
	cairo_set_font_size(cr, FONT_TITLE);
	text_at(cr, l->w / 2.0, TITLE_TOP, title, 0.5, 0.5);
	cairo_set_line_width(cr, LINE_WIDTH);
	cairo_set_font_size(cr, FONT_TICK);
	for (i = 0; i < nr; i++)
		draw_series(cr, l, &s[i], i, xmax, ymax);
	return canvas_close(&cv);
}
