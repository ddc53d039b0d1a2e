// SPDX-License-Identifier: GPL-2.0
/*
 * Heatmaps of a heats grid on a terminal, with ANSI colours or characters,
 * and the colour ramp the image (heatimg.c) shares.  Time runs left to
 * right, addresses grow upwards.  No cairo here: a damo built without it
 * still draws heatmaps on the terminal.
 */
#include <math.h>
#include <string.h>

#include "damo.h"

#define NR_RGB		HEAT_NR_RGB	/* red, green, blue */

/* A black-purple-red-yellow-white ramp. */
void heat_color(double v, double rgb[NR_RGB])
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

double heat_level(const struct heats *h, int t, int a)
{
	return h->max_heat > 0 ? h->heat[t * h->ares + a] / h->max_heat : 0;
}

double heats_secs(const struct heats *h)
{
	return (double)h->tunit * h->tres / NSEC_PER_SEC;
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
		v = heat_level(h, t, a);
		if (!color) {
			fputc(shades[(int)lround(v * HOTTEST_SHADE)], out);
			continue;
		}
		heat_color(v, rgb);
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
	double secs = heats_secs(h);
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
		heat_color((double)i / HOTTEST_SHADE, rgb);
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
