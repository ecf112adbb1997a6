#include "plots/label_layout.h"

#include <array>

namespace exsim::report {

double text_width(const std::string& text, double font_px) { return 0.62 * font_px * static_cast<double>(text.size()); }

Box text_box(const std::string& text, double x, double y, double font_px, const std::string& anchor) {
  const double width = text_width(text, font_px);
  const double left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width : x;
  // Ascenders reach about 0.75 em above the baseline, descenders 0.25 below.
  return {left, y - 0.75 * font_px, left + width, y + 0.25 * font_px};
}

std::vector<PlacedLabel> place_labels(const std::vector<LabelRequest>& labels, const Box& area, double font_px,
                                      double marker_px) {
  std::vector<Box> taken;  // the points' markers, then each label placed
  for (const auto& l : labels) taken.push_back({l.x - marker_px, l.y - marker_px, l.x + marker_px, l.y + marker_px});
  const double height = font_px, gap = 3;
  std::vector<PlacedLabel> placed(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const LabelRequest& l = labels[i];
    for (const std::string* text : {&l.text, &l.short_text}) {
      if (text->empty() || placed[i].placed) continue;
      const double width = text_width(*text, font_px);
      const double dx = marker_px + gap + width / 2, dy = marker_px + gap + height / 2;
      const std::array<std::pair<double, double>, 8> centres = {{{0, -dy},
                                                                 {0, dy},
                                                                 {dx, 0},
                                                                 {-dx, 0},
                                                                 {dx, -dy},
                                                                 {-dx, -dy},
                                                                 {dx, dy},
                                                                 {-dx, dy}}};
      for (const auto& [cx, cy] : centres) {
        const Box box{l.x + cx - width / 2, l.y + cy - height / 2, l.x + cx + width / 2, l.y + cy + height / 2};
        if (!box.inside(area)) continue;
        bool clear = true;
        for (const Box& other : taken) clear = clear && !box.overlaps(other);
        if (!clear) continue;
        taken.push_back(box);
        placed[i] = {true, *text, l.x + cx, l.y + cy};
        break;
      }
    }
  }
  return placed;
}

}  // namespace exsim::report
