// SPDX-License-Identifier: GPL-2.0
/* The cairo drawing that the heatmap and the plot share (canvas.h). */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "canvas.h"
#include "damo.h"

/* The x axis title's baseline above the bottom; the y axis title's centre
 * right of the left edge. */
#define X_TITLE_BOTTOM	22
#define Y_TITLE_LEFT	18

/* The extensions canvas_type_of() knows, and what each makes. */
static const struct {
	const char *ext;
	enum canvas_type type;
} image_exts[] = {
	{ "png", CANVAS_PNG },
	{ "svg", CANVAS_SVG },
	{ "pdf", CANVAS_PDF },
};

/*
 * An image's type from its file name's extension (any case): a name
 * without one of them is an error rather than a PNG by default, so that
 * "-o stdout" or "-o out.jpg" never leaves a PNG under a misleading name.
 */
static int canvas_type_of(const char *path, enum canvas_type *type)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	if (IMAGE_TO_STDOUT(path)) {
		*type = CANVAS_PNG;
		return 0;
	}
	dot = strrchr(base ? base + 1 : path, '.');
	for (i = 0; dot && i < ARRAY_SIZE(image_exts); i++)
		if (!strcasecmp(dot + 1, image_exts[i].ext)) {
			*type = image_exts[i].type;
			return 0;
		}
	damo_err("%s: unknown image type: the name must end in %s (or be %s for a PNG on standard output)",
		 path, DAMO_IMAGE_TYPES, DAMO_IMAGE_STDOUT);
	return -EINVAL;
}

/* How messages name where the image goes. */
static const char *out_name(const struct canvas *cv)
{
	return IMAGE_TO_STDOUT(cv->path) ? "standard output" : cv->path;
}

/* cairo's writer: the next bytes of the image, to the canvas's file. */
static cairo_status_t put_bytes(void *closure, const unsigned char *data,
				unsigned int len)
{
	FILE *f = closure;

	return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS :
		CAIRO_STATUS_WRITE_ERROR;
}

/* The surface of cv's type, on cv->f for the vector ones. */
static cairo_surface_t *new_surface(const struct canvas *cv,
				    const struct layout *l)
{
	switch (cv->type) {
	case CANVAS_SVG:
		return cairo_svg_surface_create_for_stream(put_bytes, cv->f,
							   l->w, l->h);
	case CANVAS_PDF:
		return cairo_pdf_surface_create_for_stream(put_bytes, cv->f,
							   l->w, l->h);
	case CANVAS_PNG:
		break;
	}
	return cairo_image_surface_create(CAIRO_FORMAT_RGB24, l->w, l->h);
}

int canvas_open(struct canvas *cv, const struct layout *l, const char *path)
{
	cairo_surface_t *sf;

	memset(cv, 0, sizeof(*cv));
	cv->path = path;
	if (canvas_type_of(path, &cv->type))
		return -EINVAL;
	cv->f = IMAGE_TO_STDOUT(path) ? stdout : fopen(path, "wb");
	if (!cv->f) {
		damo_err("cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	sf = new_surface(cv, l);
	cv->cr = cairo_create(sf);
	/* cr holds its own reference */
	cairo_surface_destroy(sf);
	cairo_set_source_rgb(cv->cr, 1, 1, 1);
	cairo_paint(cv->cr);
	cairo_select_font_face(cv->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	return 0;
}

/* The drawing out to cv->f (vector surfaces: the rest of it); a status. */
static cairo_status_t finish_image(struct canvas *cv)
{
	cairo_surface_t *sf = cairo_surface_reference(cairo_get_target(cv->cr));
	cairo_status_t st;

	cairo_destroy(cv->cr);
	cv->cr = NULL;
	if (cv->type == CANVAS_PNG) {
		st = cairo_surface_write_to_png_stream(sf, put_bytes, cv->f);
	} else {
		cairo_surface_finish(sf);
		st = cairo_surface_status(sf);
	}
	cairo_surface_destroy(sf);
	return st;
}

/* Close the file (flush standard output); 0 or an errno. */
static int close_file(struct canvas *cv)
{
	int err = 0;

	if (cv->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			err = errno ? errno : EIO;
	} else if (fclose(cv->f)) {
		err = errno;
	}
	cv->f = NULL;
	return err;
}

int canvas_close(struct canvas *cv)
{
	cairo_status_t st;
	int err, cerr;

	errno = 0;
	st = finish_image(cv);
	/* a failed write left errno as the write saw it */
	err = st == CAIRO_STATUS_WRITE_ERROR ? (errno ? errno : EIO) : 0;
	cerr = close_file(cv);
	if (st == CAIRO_STATUS_SUCCESS)
		err = cerr;
	if (st == CAIRO_STATUS_SUCCESS && !err)
		return 0;
	damo_err("cannot write %s: %s", out_name(cv),
		 err ? strerror(err) : cairo_status_to_string(st));
	if (!IMAGE_TO_STDOUT(cv->path))
		unlink(cv->path);
	return -EIO;
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
