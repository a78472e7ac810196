// "Did you mean" for misspelt keys and enum values.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rowbridge::config {

// The candidate closest to `typo` by edit distance (insert, delete, substitute, swap adjacent;
// case-insensitive), or "" if none is close enough to be a plausible misspelling.
std::string ClosestMatch(std::string_view typo, std::span<const std::string_view> candidates);

}  // namespace rowbridge::config
