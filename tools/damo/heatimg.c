// SPDX-License-Identifier: GPL-2.0
/*
 * The heatmap of a heats grid as an image, drawn with cairo (axes with
 * units, a colour scale): PNG, SVG or PDF by the file's name (canvas.c).
 * Time runs left to right, addresses grow upwards, in the colours of the
 * terminal heatmap (heatmap.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "canvas.h"
#include "damo.h"

#define NR_RGB		HEAT_NR_RGB	/* red, green, blue */

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

/*
 * The cells are drawn as one image stretched over the plot area without
 * smoothing, so that an SVG or PDF holds one small picture rather than a
 * shape per cell (250,000 at the default resolution: tens of megabytes of
 * SVG).  Along each axis a cell is a whole number of its pixels, and there
 * are at least as many as the plot area has: SVG viewers smooth images
 * anyway (cairo cannot tell them not to), and then blur no more than a
 * pixel at cell edges.  More cells than the plot has pixels get a pixel
 * each; beyond cairo's largest image, a pixel of the plot area shows the
 * cell at its centre, as drawing every cell would have anyway.
 */
#define CELLS_SIDE_MAX		32767
#define COLOUR_MAX		255
#define RED_SHIFT		16
#define GREEN_SHIFT		8

/* The image's pixels along an axis of cells over plot_px pixels. */
static int image_side(int cells, double plot_px)
{
	if (cells > CELLS_SIDE_MAX)
		return (int)plot_px;
	if (cells >= plot_px)
		return cells;
	return cells * (int)ceil(plot_px / cells);
}

/* An RGB24 pixel: 0x00RRGGBB in the machine's byte order. */
static uint32_t pixel_of(const double rgb[NR_RGB])
{
	return (uint32_t)lround(rgb[0] * COLOUR_MAX) << RED_SHIFT |
		(uint32_t)lround(rgb[1] * COLOUR_MAX) << GREEN_SHIFT |
		(uint32_t)lround(rgb[2] * COLOUR_MAX);
}

/* Tells cairo what to free with the image: the pixels damo allocated. */
static const cairo_user_data_key_t pixels_key;

/* w x rows pixels of the cells: the top row the highest addresses. */
static cairo_surface_t *cells_image(const struct heats *h, int w, int rows)
{
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, w);
	unsigned char *data = xmalloc((size_t)stride * rows);
	double rgb[NR_RGB];
	cairo_surface_t *img;
	uint32_t *px;
	int x, y, t, a;

	for (y = 0; y < rows; y++) {
		px = (uint32_t *)(data + (size_t)y * stride);
		a = h->ares - 1 - (int)((int64_t)y * h->ares / rows);
		for (x = 0; x < w; x++) {
			t = (int)((int64_t)x * h->tres / w);
			heat_color(heat_level(h, t, a), rgb);
			px[x] = pixel_of(rgb);
		}
	}
	img = cairo_image_surface_create_for_data(data, CAIRO_FORMAT_RGB24, w,
						  rows, stride);
	/* SVG and PDF surfaces may hold on to it until they are finished */
	cairo_surface_set_user_data(img, &pixels_key, data, free);
	return img;
}

static void draw_cells(cairo_t *cr, const struct layout *l,
		       const struct heats *h)
{
	const int w = image_side(h->tres, plot_w(l));
	const int rows = image_side(h->ares, plot_h(l));
	cairo_surface_t *img = cells_image(h, w, rows);

	cairo_save(cr);
	cairo_translate(cr, l->left, l->top);
	cairo_scale(cr, plot_w(l) / w, plot_h(l) / rows);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_rectangle(cr, 0, 0, w, rows);
	cairo_fill(cr);
	cairo_restore(cr);
	cairo_surface_destroy(img);
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
		heat_color((double)i / (ph - 1), rgb);
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
	struct canvas cv;
	cairo_t *cr;
	int r;

	r = canvas_open(&cv, l, path);
	if (r)
		return r;
	cr = cv.cr;
	draw_cells(cr, l, h);
	draw_frame(cr, l);
	/* time: seconds since the start of the range */
	cairo_set_font_size(cr, FONT_TICK);
	x_ticks(cr, l, heats_secs(h), TIME_TICKS);
	x_title(cr, l, "time (s)");
	address_axis(cr, l, h);
	colour_scale(cr, l, h);
	cairo_set_font_size(cr, FONT_TITLE);
	text_at(cr, l->w / 2.0, TITLE_TOP, title, 0.5, 0.5);
	return canvas_close(&cv);
}
