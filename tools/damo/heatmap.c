// SPDX-License-Identifier: GPL-2.0
/*
 * Heatmaps of a heats grid: a PNG drawn with cairo (axes with units, a
 * colour scale) and a terminal rendering with ANSI colours or characters.
 * Time runs left to right, addresses grow upwards.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "canvas.h"
#include "damo.h"

#define NR_RGB		3	/* red, green, blue */

/* A black-purple-red-yellow-white ramp; v in [0, 1]. */
static void colormap(double v, double rgb[NR_RGB])
{
	static const double stops[][NR_RGB] = {
		{ 0.00, 0.00, 0.02 },
		{ 0.30, 0.05, 0.45 },
		{ 0.75, 0.15, 0.30 },
		{ 0.98, 0.50, 0.05 },
		{ 0.99, 0.90, 0.30 },
		{ 1.00, 1.00, 0.90 },
	};
	const int n = ARRAY_SIZE(stops) - 1;
	double x, f;
	int i, k;

	if (!(v > 0))
		v = 0;
	if (v > 1)
		v = 1;
	x = v * n;
	i = (int)x;
	if (i >= n)
		i = n - 1;
	f = x - i;
	for (k = 0; k < NR_RGB; k++)
		rgb[k] = stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
}

static double cell(const struct heats *h, int t, int a)
{
	return h->max_heat > 0 ? h->heat[t * h->ares + a] / h->max_heat : 0;
}

/* The seconds the grid spans. */
static double grid_secs(const struct heats *h)
{
	return (double)h->tunit * h->tres / NSEC_PER_SEC;
}

/* ------------------------------------------------------------ PNG */

static const struct layout heatmap_layout = {
	.w = 1000, .h = 640, .left = 150, .right = 140, .top = 50, .bottom = 70,
};

/* Time ticks, and address ticks at powers of two: about this many. */
#define TIME_TICKS		8
#define MAX_ADDR_TICKS		8
/* The title's centre below the top. */
#define TITLE_TOP		18
/* The colour scale: its bar right of the plot area, its labels, its title
 * left of the image's right edge, and its labelled values. */
#define SCALE_GAP		20
#define SCALE_WIDTH		20
#define SCALE_LABEL_GAP		46
#define SCALE_TITLE_RIGHT	18
#define SCALE_STEPS		4

#define KIB			(1ULL << 10)
#define MIB			(1ULL << 20)

/* The cells; rounded edges so that neighbours leave no seams. */
static void draw_cells(cairo_t *cr, const struct layout *l,
		       const struct heats *h)
{
	const double pw = plot_w(l), ph = plot_h(l);
	double x0, x1, y0, y1, rgb[NR_RGB];
	int t, a;

	for (t = 0; t < h->tres; t++) {
		x0 = floor(l->left + pw * t / h->tres);
		x1 = floor(l->left + pw * (t + 1) / h->tres);
		for (a = 0; a < h->ares; a++) {
			y0 = floor(l->top + ph - ph * (a + 1) / h->ares);
			y1 = floor(l->top + ph - ph * a / h->ares);
			colormap(cell(h, t, a), rgb);
			cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
			cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
			cairo_fill(cr);
		}
	}
}

/* Absolute addresses in hex, at multiples of a power of two. */
static void address_axis(cairo_t *cr, const struct layout *l,
			 const struct heats *h)
{
	uint64_t span = h->aunit * (uint64_t)h->ares, astep = 1, addr;
	const double ph = plot_h(l);
	char buf[64];

	cairo_set_font_size(cr, FONT_TICK);
	while (astep < span / MAX_ADDR_TICKS)
		astep <<= 1;
	for (addr = (h->amin + astep - 1) / astep * astep;
	     addr <= h->amin + span; addr += astep) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
		y_tick(cr, l, l->top + ph - ph * (double)(addr - h->amin) / span,
		       buf);
	}
	if (span >= MIB)
		snprintf(buf, sizeof(buf), "virtual address (%.1f MiB shown)",
			 (double)span / MIB);
	else
		snprintf(buf, sizeof(buf), "virtual address (%.1f KiB shown)",
			 (double)span / KIB);
	y_title(cr, l, buf);
}

/* The colour ramp from 0 to the hottest cell, right of the plot. */
static void colour_scale(cairo_t *cr, const struct layout *l,
			 const struct heats *h)
{
	const double ph = plot_h(l), x = l->w - l->right + SCALE_GAP;
	double rgb[NR_RGB];
	char buf[32];
	int i;

	for (i = 0; i < (int)ph; i++) {
		colormap((double)i / (ph - 1), rgb);
		cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		cairo_rectangle(cr, x, l->top + ph - i - 1, SCALE_WIDTH, 1);
		cairo_fill(cr);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_rectangle(cr, x - 0.5, l->top - 0.5, SCALE_WIDTH + 1, ph + 1);
	cairo_stroke(cr);
	cairo_set_font_size(cr, FONT_TICK);
	for (i = 0; i <= SCALE_STEPS; i++) {
		snprintf(buf, sizeof(buf), "%.3g",
			 h->max_heat * i / SCALE_STEPS);
		text_at(cr, l->w - l->right + SCALE_LABEL_GAP,
			l->top + ph - ph * i / SCALE_STEPS, buf, 0, 0.5);
	}
	text_up(cr, l->w - SCALE_TITLE_RIGHT, l->top + ph / 2,
		"accesses per aggregation (samples)");
}

int heatmap_png(const struct heats *h, const char *path, const char *title)
{
	const struct layout *l = &heatmap_layout;
	cairo_t *cr = canvas_new(l);

	draw_cells(cr, l, h);
	draw_frame(cr, l);
	/* time: seconds since the start of the range */
	cairo_set_font_size(cr, FONT_TICK);
	x_ticks(cr, l, grid_secs(h), TIME_TICKS);
	x_title(cr, l, "time (s)");
	address_axis(cr, l, h);
	colour_scale(cr, l, h);
	cairo_set_font_size(cr, FONT_TITLE);
	text_at(cr, l->w / 2.0, TITLE_TOP, title, 0.5, 0.5);
	return canvas_write(cr, path);
}

/* ------------------------------------------------------------ terminal */

/* Characters from cold to hot, for terminals without colours. */
static const char shades[] = " .:-=+*#%@";
#define HOTTEST_SHADE		((int)sizeof(shades) - 2)

/* The xterm-256 colour cube: 6 levels a channel, from index 16 on. */
#define XTERM_CUBE_BASE		16
#define XTERM_CUBE_LEVELS	6

/* The xterm-256 colour cube index nearest to rgb. */
static int xterm256(const double rgb[NR_RGB])
{
	int c[NR_RGB], k;

	for (k = 0; k < NR_RGB; k++)
		c[k] = (int)lround(rgb[k] * (XTERM_CUBE_LEVELS - 1));
	return XTERM_CUBE_BASE +
		(c[0] * XTERM_CUBE_LEVELS + c[1]) * XTERM_CUBE_LEVELS + c[2];
}

/* One address bin's row: its address, then a cell a time bin. */
static void term_row(FILE *out, const struct heats *h, int a, bool color)
{
	double rgb[NR_RGB], v;
	int t, col, prev = -1;

	fprintf(out, "%*llx |", HEATMAP_LABEL_WIDTH,
		(unsigned long long)(h->amin + (uint64_t)a * h->aunit));
	for (t = 0; t < h->tres; t++) {
		v = cell(h, t, a);
		if (!color) {
			fputc(shades[(int)lround(v * HOTTEST_SHADE)], out);
			continue;
		}
		colormap(v, rgb);
		col = xterm256(rgb);
		/* a background only where it changes */
		if (col != prev)
			fprintf(out, "\033[48;5;%dm", col);
		fputc(' ', out);
		prev = col;
	}
	fputs(color ? "\033[0m|\n" : "|\n", out);
}

/* The bottom border and the time at the start, middle and end. */
static void term_time_axis(FILE *out, const struct heats *h)
{
	double secs = grid_secs(h);
	char left[32], mid[32], right[32];
	int t, pad, lpad, rpad;

	fprintf(out, "%*s +", HEATMAP_LABEL_WIDTH, "");
	for (t = 0; t < h->tres; t++)
		fputc('-', out);
	fputs("+\n", out);
	snprintf(left, sizeof(left), "0");
	snprintf(mid, sizeof(mid), "%.3g", secs / 2);
	snprintf(right, sizeof(right), "%.3g s", secs);
	pad = h->tres - (int)strlen(mid) - 1;
	lpad = pad / 2 - (int)strlen(left) + 1;
	rpad = pad - pad / 2 - (int)strlen(right) + 1;
	fprintf(out, "%*s  %s%*s%s%*s%s\n", HEATMAP_LABEL_WIDTH, "time", left,
		lpad > 0 ? lpad : 1, "", mid, rpad > 0 ? rpad : 1, "", right);
}

static void term_legend(FILE *out, const struct heats *h, bool color)
{
	double rgb[NR_RGB];
	int i;

	fprintf(out, "address (hex) up, time right; pid %llu; max %.3g accesses per aggregation ",
		(unsigned long long)h->pid, h->max_heat);
	if (!color) {
		fprintf(out, "\"%s\" (0..max)\n", shades);
		return;
	}
	for (i = 0; i <= HOTTEST_SHADE; i++) {
		colormap((double)i / HOTTEST_SHADE, rgb);
		fprintf(out, "\033[48;5;%dm ", xterm256(rgb));
	}
	fputs("\033[0m (0..max)\n", out);
}

void heatmap_term(FILE *out, const struct heats *h, bool color)
{
	int a;

	for (a = h->ares - 1; a >= 0; a--)
		term_row(out, h, a, color);
	term_time_axis(out, h);
	term_legend(out, h, color);
}
