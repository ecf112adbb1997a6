// Labels beside the points of a plot, none over another label or over a
// point: gnuplot places a label where it is told, so a report with 20 hosts
// and 45 sweep points drew "#3 64K" over "#5 budget-16M". Labels are placed in
// pixels, on a plot whose margins and ranges are fixed beforehand, and each
// takes the first free place around its point; one that finds none is left
// out (the report's table names every result).
#ifndef EXSIM_PLOTS_LABEL_LAYOUT_H_
#define EXSIM_PLOTS_LABEL_LAYOUT_H_

#include <string>
#include <vector>

namespace exsim::report {

// A rectangle in pixels, y downwards as in SVG.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  // Whether the two share more than `slack` pixels each way.
  bool overlaps(const Box& other, double slack = 0) const {
    return x0 + slack < other.x1 && other.x0 + slack < x1 && y0 + slack < other.y1 && other.y0 + slack < y1;
  }
  bool inside(const Box& outer) const { return x0 >= outer.x0 && x1 <= outer.x1 && y0 >= outer.y0 && y1 <= outer.y1; }
};

// The width of `text` at `font_px`: gnuplot's SVG names a sans font and the
// browser picks the face; sans faces average below 0.6 em a character
// (DejaVu Sans's digits are 0.64 em, its lower case about 0.55), so 0.62 errs
// wide for the labels a report writes.
double text_width(const std::string& text, double font_px);

// The box of a text whose anchor is (x, y) on its baseline, as SVG draws it:
// `anchor` "start", "middle" or "end".
Box text_box(const std::string& text, double x, double y, double font_px, const std::string& anchor);

struct LabelRequest {
  double x = 0, y = 0;           // the point, in pixels
  std::string text, short_text;  // the label, and what to try when it finds no place
};

struct PlacedLabel {
  bool placed = false;
  std::string text;    // the text placed: the label or its short form
  double x = 0, y = 0; // the centre of its box, in pixels
};

// Places the labels in the order given (the first have the pick of places):
// each above, below, right of, left of its point or on a diagonal, wholly
// inside `area`, clear of every label placed and every point (a marker of
// `marker_px` radius); its short form where the whole finds no place.
std::vector<PlacedLabel> place_labels(const std::vector<LabelRequest>& labels, const Box& area, double font_px,
                                      double marker_px);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_LABEL_LAYOUT_H_
