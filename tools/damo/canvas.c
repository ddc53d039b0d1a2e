// SPDX-License-Identifier: GPL-2.0
/* The cairo drawing that the heatmap and the plot share (canvas.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "canvas.h"
#include "damo.h"

/* The x axis title's baseline above the bottom; the y axis title's centre
 * right of the left edge. */
#define X_TITLE_BOTTOM	22
#define Y_TITLE_LEFT	18

cairo_t *canvas_new(const struct layout *l)
{
	cairo_surface_t *sf;
	cairo_t *cr;

	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, l->w, l->h);
	cr = cairo_create(sf);
	/* cr holds its own reference */
	cairo_surface_destroy(sf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	return cr;
}

int canvas_write(cairo_t *cr, const char *path)
{
	cairo_surface_t *sf = cairo_surface_reference(cairo_get_target(cr));
	cairo_status_t st;

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

void text_at(cairo_t *cr, double x, double y, const char *s, double xalign,
	     double yalign)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.width * xalign - e.x_bearing,
		      y + e.height * yalign - (e.height + e.y_bearing));
	cairo_show_text(cr, s);
}

void text_up(cairo_t *cr, double x, double y, const char *s)
{
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, s, 0.5, 0.5);
	cairo_restore(cr);
}

double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	/* the nearest of 1, 2, 5 and 10 on a log scale, roughly */
	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

void draw_frame(cairo_t *cr, const struct layout *l)
{
	/* half a pixel out: the line covers whole pixels around the area */
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, l->left - 0.5, l->top - 0.5, plot_w(l) + 1,
			plot_h(l) + 1);
	cairo_stroke(cr);
}

void x_ticks(cairo_t *cr, const struct layout *l, double max, int n)
{
	double step = nice_step(max, n), v, x;
	double bottom = l->top + plot_h(l);
	char buf[32];

	for (v = 0; v <= max * (1 + TICK_SLACK); v += step) {
		x = l->left + plot_w(l) * v / max;
		cairo_move_to(cr, x, bottom);
		cairo_line_to(cr, x, bottom + TICK_LEN);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%g", v);
		text_at(cr, x, bottom + TICK_LABEL_GAP, buf, 0.5, 1);
	}
}

void y_tick(cairo_t *cr, const struct layout *l, double y, const char *s)
{
	cairo_move_to(cr, l->left - TICK_LEN, y);
	cairo_line_to(cr, l->left, y);
	cairo_stroke(cr);
	text_at(cr, l->left - TICK_LABEL_GAP, y, s, 1, 0.5);
}

void x_title(cairo_t *cr, const struct layout *l, const char *s)
{
	cairo_set_font_size(cr, FONT_AXIS);
	text_at(cr, l->left + plot_w(l) / 2, l->h - X_TITLE_BOTTOM, s, 0.5, 1);
}

void y_title(cairo_t *cr, const struct layout *l, const char *s)
{
	cairo_save(cr);
	cairo_set_font_size(cr, FONT_AXIS);
	text_up(cr, Y_TITLE_LEFT, l->top + plot_h(l) / 2, s);
	cairo_restore(cr);
}
