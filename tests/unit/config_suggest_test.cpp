#include <gtest/gtest.h>

#include <array>

#include "config/suggest.h"

namespace rowbridge::config {
namespace {

TEST(ConfigSuggest, FindsPlausibleMisspellings) {
  std::array<std::string_view, 6> keys = {"host",      "port",        "password",
                                          "server_id", "compression", "level"};
  EXPECT_EQ(ClosestMatch("pasword", keys), "password");
  EXPECT_EQ(ClosestMatch("PORT", keys), "port");
  EXPECT_EQ(ClosestMatch("hots", keys), "host");  // swapped letters
  EXPECT_EQ(ClosestMatch("serverid", keys), "server_id");
  EXPECT_EQ(ClosestMatch("compresion", keys), "compression");
  EXPECT_EQ(ClosestMatch("lvl", keys), "level");
  EXPECT_EQ(ClosestMatch("colour", keys), "");
  EXPECT_EQ(ClosestMatch("", keys), "");
  EXPECT_EQ(ClosestMatch(std::string(100, 'p'), keys), "");
}

}  // namespace
}  // namespace rowbridge::config
