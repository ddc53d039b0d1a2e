// SPDX-License-Identifier: GPL-2.0
/*
 * Heatmaps of a heats grid: a PNG drawn with cairo (axes with units, a
 * colour scale) and a terminal rendering with ANSI colours or characters.
 * Time runs left to right, addresses grow upwards.
 */
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "damo.h"

/* A black-purple-red-yellow-white ramp; v in [0, 1]. */
static void colormap(double v, double rgb[3])
{
	static const double stops[][3] = {
		{ 0.00, 0.00, 0.02 },
		{ 0.30, 0.05, 0.45 },
		{ 0.75, 0.15, 0.30 },
		{ 0.98, 0.50, 0.05 },
		{ 0.99, 0.90, 0.30 },
		{ 1.00, 1.00, 0.90 },
	};
	const int n = sizeof(stops) / sizeof(stops[0]) - 1;
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
	for (k = 0; k < 3; k++)
		rgb[k] = stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
}

static double cell(const struct heats *h, int t, int a)
{
	return h->max_heat > 0 ? h->heat[t * h->ares + a] / h->max_heat : 0;
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

static void text_at(cairo_t *cr, double x, double y, const char *s,
		    double xalign, double yalign)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.width * xalign - e.x_bearing,
		      y + e.height * yalign - (e.height + e.y_bearing));
	cairo_show_text(cr, s);
}

/*
 * Ticks and labels below a plot whose area starts at (@left, @top) and is
 * @pw x @ph: about @n round values from 0 to @max.
 */
static void x_ticks(cairo_t *cr, double left, double top, double pw,
		    double ph, double max, int n)
{
	double step = nice_step(max, n), v;
	char buf[32];

	for (v = 0; v <= max * (1 + 1e-9); v += step) {
		double x = left + pw * v / max;

		cairo_move_to(cr, x, top + ph);
		cairo_line_to(cr, x, top + ph + 5);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%g", v);
		text_at(cr, x, top + ph + 8, buf, 0.5, 1);
	}
}

int heatmap_png(const struct heats *h, const char *path, const char *title)
{
	const int W = 1000, H = 640, L = 150, R = 140, T = 50, B = 70;
	const double pw = W - L - R, ph = H - T - B;
	double secs = (double)h->tunit * h->tres / 1e9, rgb[3];
	uint64_t span = h->aunit * (uint64_t)h->ares, astep, addr;
	cairo_surface_t *sf;
	cairo_status_t st;
	cairo_t *cr;
	char buf[64];
	int t, a, i;

	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cr = cairo_create(sf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);

	/* the cells; rounded edges so that neighbours leave no seams */
	for (t = 0; t < h->tres; t++) {
		double x0 = floor(L + pw * t / h->tres);
		double x1 = floor(L + pw * (t + 1) / h->tres);

		for (a = 0; a < h->ares; a++) {
			double y0 = floor(T + ph - ph * (a + 1) / h->ares);
			double y1 = floor(T + ph - ph * a / h->ares);

			colormap(cell(h, t, a), rgb);
			cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
			cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
			cairo_fill(cr);
		}
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, L - 0.5, T - 0.5, pw + 1, ph + 1);
	cairo_stroke(cr);

	/* time axis: seconds since the start of the range */
	cairo_set_font_size(cr, 12);
	x_ticks(cr, L, T, pw, ph, secs, 8);
	cairo_set_font_size(cr, 13);
	text_at(cr, L + pw / 2, H - 22, "time (s)", 0.5, 1);

	/* address axis: absolute addresses in hex */
	cairo_set_font_size(cr, 12);
	/* ticks at multiples of a power of two, 4 to 8 of them */
	astep = 1;
	while (astep < span / 8)
		astep <<= 1;
	for (addr = (h->amin + astep - 1) / astep * astep;
	     addr <= h->amin + span; addr += astep) {
		double y = T + ph - ph * (double)(addr - h->amin) / span;

		cairo_move_to(cr, L - 5, y);
		cairo_line_to(cr, L, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
		text_at(cr, L - 8, y, buf, 1, 0.5);
	}
	cairo_save(cr);
	cairo_set_font_size(cr, 13);
	cairo_translate(cr, 18, T + ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	if (span >= 1 << 20)
		snprintf(buf, sizeof(buf), "virtual address (%.1f MiB shown)",
			 (double)span / (1 << 20));
	else
		snprintf(buf, sizeof(buf), "virtual address (%.1f KiB shown)",
			 (double)span / (1 << 10));
	text_at(cr, 0, 0, buf, 0.5, 0.5);
	cairo_restore(cr);

	/* the colour scale */
	for (i = 0; i < (int)ph; i++) {
		colormap((double)i / (ph - 1), rgb);
		cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		cairo_rectangle(cr, W - R + 20, T + ph - i - 1, 20, 1);
		cairo_fill(cr);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_rectangle(cr, W - R + 19.5, T - 0.5, 21, ph + 1);
	cairo_stroke(cr);
	cairo_set_font_size(cr, 12);
	for (i = 0; i <= 4; i++) {
		double y = T + ph - ph * i / 4;

		snprintf(buf, sizeof(buf), "%.3g", h->max_heat * i / 4);
		text_at(cr, W - R + 46, y, buf, 0, 0.5);
	}
	cairo_save(cr);
	cairo_translate(cr, W - 18, T + ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, "accesses per aggregation (samples)", 0.5, 0.5);
	cairo_restore(cr);

	cairo_set_font_size(cr, 15);
	text_at(cr, W / 2.0, 18, title, 0.5, 0.5);

	cairo_destroy(cr);
	st = cairo_surface_write_to_png(sf, path);
	cairo_surface_destroy(sf);
	if (st != CAIRO_STATUS_SUCCESS) {
		damo_err("cannot write %s: %s", path,
			 st == CAIRO_STATUS_WRITE_ERROR ? strerror(errno) :
			 cairo_status_to_string(st));
		return -EIO;
	}
	return 0;
}

/* The xterm-256 colour cube index nearest to rgb. */
static int xterm256(const double rgb[3])
{
	int c[3], k;

	for (k = 0; k < 3; k++)
		c[k] = (int)lround(rgb[k] * 5);
	return 16 + 36 * c[0] + 6 * c[1] + c[2];
}

void heatmap_term(FILE *out, const struct heats *h, bool color)
{
	static const char shades[] = " .:-=+*#%@";
	double rgb[3], v, secs = (double)h->tunit * h->tres / 1e9;
	char left[32], mid[32], right[32];
	int t, a, pad;

	for (a = h->ares - 1; a >= 0; a--) {
		uint64_t addr = h->amin + (uint64_t)a * h->aunit;

		int prev = -1, col;

		fprintf(out, "%14llx |", (unsigned long long)addr);
		for (t = 0; t < h->tres; t++) {
			v = cell(h, t, a);
			if (color) {
				colormap(v, rgb);
				col = xterm256(rgb);
				if (col != prev)
					fprintf(out, "\033[48;5;%dm", col);
				fputc(' ', out);
				prev = col;
			} else {
				fputc(shades[(int)lround(v * 9)], out);
			}
		}
		fputs(color ? "\033[0m|\n" : "|\n", out);
	}
	fprintf(out, "%14s +", "");
	for (t = 0; t < h->tres; t++)
		fputc('-', out);
	fputs("+\n", out);
	snprintf(left, sizeof(left), "0");
	snprintf(mid, sizeof(mid), "%.3g", secs / 2);
	snprintf(right, sizeof(right), "%.3g s", secs);
	pad = h->tres - (int)strlen(mid) - 1;
	fprintf(out, "%14s  %s%*s%s%*s%s\n", "time", left,
		pad / 2 - (int)strlen(left) + 1 > 0 ?
			pad / 2 - (int)strlen(left) + 1 : 1, "", mid,
		pad - pad / 2 - (int)strlen(right) + 1 > 0 ?
			pad - pad / 2 - (int)strlen(right) + 1 : 1, "",
		right);
	fprintf(out, "address (hex) up, time right; pid %llu; max %.3g accesses per aggregation ",
		(unsigned long long)h->pid, h->max_heat);
	if (color) {
		for (t = 0; t <= 9; t++) {
			colormap(t / 9.0, rgb);
			fprintf(out, "\033[48;5;%dm ", xterm256(rgb));
		}
		fputs("\033[0m (0..max)\n", out);
	} else {
		fprintf(out, "\"%s\" (0..max)\n", shades);
	}
}

/*
 * A line plot of the wss or nr_regions distribution (the seed's --plot):
 * one line with points per target, x and y axes from 0 to their maximum.
 */
int plot_png(const char *path, const struct plot_series *s, size_t nr,
	     const char *xlabel, const char *ylabel, const char *title)
{
	static const double colors[][3] = {
		{ 0.12, 0.35, 0.70 }, { 0.85, 0.33, 0.10 },
		{ 0.20, 0.60, 0.20 }, { 0.55, 0.25, 0.65 },
	};
	const int W = 800, H = 500, L = 110, R = 30, T = 50, B = 70;
	const double pw = W - L - R, ph = H - T - B;
	double xmax = 0, ymax = 0, step, v;
	cairo_surface_t *sf;
	cairo_status_t st;
	cairo_t *cr;
	char buf[64];
	size_t i, k;

	for (i = 0; i < nr; i++)
		for (k = 0; k < s[i].n; k++) {
			if (s[i].x[k] > xmax)
				xmax = s[i].x[k];
			if (s[i].y[k] > ymax)
				ymax = s[i].y[k];
		}
	if (xmax <= 0)
		xmax = 100;
	if (ymax <= 0)
		ymax = 1;
	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cr = cairo_create(sf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, L - 0.5, T - 0.5, pw + 1, ph + 1);
	cairo_stroke(cr);

	cairo_set_font_size(cr, 12);
	x_ticks(cr, L, T, pw, ph, xmax, 10);
	step = nice_step(ymax, 8);
	for (v = 0; v <= ymax * (1 + 1e-9); v += step) {
		double y = T + ph - ph * v / ymax;

		cairo_move_to(cr, L - 5, y);
		cairo_line_to(cr, L, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%.4g", v);
		text_at(cr, L - 8, y, buf, 1, 0.5);
	}
	cairo_set_font_size(cr, 13);
	text_at(cr, L + pw / 2, H - 22, xlabel, 0.5, 1);
	cairo_save(cr);
	cairo_translate(cr, 18, T + ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, ylabel, 0.5, 0.5);
	cairo_restore(cr);
	cairo_set_font_size(cr, 15);
	text_at(cr, W / 2.0, 20, title, 0.5, 0.5);

	cairo_set_line_width(cr, 2);
	cairo_set_font_size(cr, 12);
	for (i = 0; i < nr; i++) {
		const double *c = colors[i % 4];

		cairo_set_source_rgb(cr, c[0], c[1], c[2]);
		for (k = 0; k < s[i].n; k++) {
			double x = L + pw * s[i].x[k] / xmax;
			double y = T + ph - ph * s[i].y[k] / ymax;

			if (k)
				cairo_line_to(cr, x, y);
			else
				cairo_move_to(cr, x, y);
		}
		cairo_stroke(cr);
		for (k = 0; k < s[i].n; k++) {
			cairo_arc(cr, L + pw * s[i].x[k] / xmax,
				  T + ph - ph * s[i].y[k] / ymax, 3, 0, 2 * M_PI);
			cairo_fill(cr);
		}
		snprintf(buf, sizeof(buf), "pid %llu",
			 (unsigned long long)s[i].pid);
		text_at(cr, L + 10, T + 12 + 16 * i, buf, 0, 0.5);
	}
	cairo_destroy(cr);
	st = cairo_surface_write_to_png(sf, path);
	cairo_surface_destroy(sf);
	if (st != CAIRO_STATUS_SUCCESS) {
		damo_err("cannot write %s: %s", path,
			 st == CAIRO_STATUS_WRITE_ERROR ? strerror(errno) :
			 cairo_status_to_string(st));
		return -EIO;
	}
	return 0;
}
