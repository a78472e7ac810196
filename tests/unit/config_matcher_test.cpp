#include <gtest/gtest.h>

#include "common/error.h"
#include "config/table_matcher.h"
#include "config/table_pattern.h"
#include "config/target_template.h"

namespace rowbridge::config {
namespace {

TablePattern P(std::string_view text) {
  return TablePattern::Parse(text);
}

std::string PatternError(std::string_view text) {
  try {
    TablePattern::Parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error for pattern " << text;
  return "";
}

TEST(ConfigPattern, LiteralsAndWildcards) {
  EXPECT_TRUE(P("shop.orders").Matches("shop", "orders"));
  EXPECT_FALSE(P("shop.orders").Matches("shop", "orders2"));
  EXPECT_FALSE(P("shop.orders").Matches("Shop", "orders"));  // case-sensitive
  EXPECT_TRUE(P("shop.*").Matches("shop", "anything"));
  EXPECT_TRUE(P("shop.*").Matches("shop", ""));
  EXPECT_FALSE(P("shop.*").Matches("shop2", "x"));
  EXPECT_TRUE(P("*.log_2024_*").Matches("app", "log_2024_01"));
  EXPECT_FALSE(P("*.log_2024_*").Matches("app", "log_2023_01"));
  EXPECT_TRUE(P("s?op.t?").Matches("shop", "t1"));
  EXPECT_FALSE(P("s?op.t?").Matches("shop", "t12"));
  EXPECT_TRUE(P("a.*x*y*").Matches("a", "xxyxy"));
  EXPECT_FALSE(P("a.*x*y*z").Matches("a", "xxyxy"));
  EXPECT_TRUE(P("a.**").Matches("a", "b"));
  EXPECT_EQ(P("a.**b").ToString(), "a.*b");
  EXPECT_TRUE(P("bifrost_test.binlog_field_test_*").Matches("bifrost_test", "binlog_field_test_3"));
}

TEST(ConfigPattern, BackticksQuoteDotsAndWildcards) {
  TablePattern dotted = P("`my.db`.`orders.2024`");
  EXPECT_TRUE(dotted.Matches("my.db", "orders.2024"));
  EXPECT_FALSE(dotted.HasWildcards());
  EXPECT_TRUE(P("`my.db`.orders_*").Matches("my.db", "orders_x"));
  EXPECT_TRUE(P("a.`star*`").Matches("a", "star*"));
  EXPECT_FALSE(P("a.`star*`").Matches("a", "starry"));
  EXPECT_TRUE(P("a.`x``y`").Matches("a", "x`y"));
  EXPECT_TRUE(P("a.`we ird`_*").Matches("a", "we ird_1"));
  EXPECT_EQ(P("`my.db`.orders_*").ToString(), "`my.db`.orders_*");
  EXPECT_EQ(P("a.`x``y`").ToString(), "a.`x``y`");
  EXPECT_EQ(P("`plain`.`t`").ToString(), "plain.t");
}

TEST(ConfigPattern, BadPatternsSayWhy) {
  EXPECT_EQ(PatternError("orders"),
            "pattern \"orders\" must be db.table (e.g. shop.orders, shop.*, *.log_2024_*)");
  EXPECT_EQ(PatternError("a.b.c"),
            "pattern \"a.b.c\" has more than one dot; quote names that contain dots with "
            "backticks, e.g. `my.db`.orders");
  EXPECT_EQ(PatternError(".orders"),
            "pattern \".orders\" has an empty database name (use * for any)");
  EXPECT_EQ(PatternError("shop."), "pattern \"shop.\" has an empty table name (use * for any)");
  EXPECT_EQ(PatternError("`shop.orders"),
            "pattern \"`shop.orders\" has an unterminated backtick at character 1");
  EXPECT_EQ(PatternError("shop.order%"),
            "pattern \"shop.order%\" contains %: the wildcards are * (any run) and ? (one "
            "character); quote a literal % with backticks");
  EXPECT_EQ(PatternError("shop.log[0-9]"),
            "pattern \"shop.log[0-9]\" contains [: character classes are not supported (use ? or "
            "*); quote a literal [ with backticks");
  EXPECT_EQ(PatternError("shop. orders"),
            "pattern \"shop. orders\" contains unquoted whitespace; quote such names with "
            "backticks");
  EXPECT_EQ(
      PatternError(std::string(300, 'a') + ".b"),
      "pattern \"" + std::string(300, 'a') + ".b\" is too long (256 characters at most per part)");
}

TEST(ConfigPattern, Coverage) {
  EXPECT_TRUE(P("shop.orders").IsCoveredBy(P("shop.*")));
  EXPECT_TRUE(P("shop.orders").IsCoveredBy(P("*.*")));
  EXPECT_TRUE(P("shop.ord?rs").IsCoveredBy(P("shop.ord*")));
  EXPECT_TRUE(P("shop.log_*").IsCoveredBy(P("shop.*")));
  EXPECT_TRUE(P("shop.a*b*c").IsCoveredBy(P("shop.a*c")));
  EXPECT_TRUE(P("shop.x").IsCoveredBy(P("shop.x")));
  EXPECT_FALSE(P("shop.*").IsCoveredBy(P("shop.orders")));
  EXPECT_FALSE(P("shop.*").IsCoveredBy(P("shop.?*")));  // "" is not covered
  EXPECT_TRUE(P("shop.?*").IsCoveredBy(P("shop.*")));
  EXPECT_FALSE(P("shop.ord*").IsCoveredBy(P("shop.ord?rs")));
  EXPECT_FALSE(P("*.orders").IsCoveredBy(P("shop.*")));
  EXPECT_FALSE(P("shop.a?").IsCoveredBy(P("shop.ab")));
}

TEST(ConfigPattern, Overlap) {
  EXPECT_TRUE(P("shop.*").Overlaps(P("*.orders")));
  EXPECT_TRUE(P("*.orders").Overlaps(P("shop.*")));
  EXPECT_FALSE(P("shop.*").Overlaps(P("blog.*")));
  EXPECT_TRUE(P("a.x*").Overlaps(P("a.*y")));
  EXPECT_FALSE(P("a.x*").Overlaps(P("a.y*")));
  EXPECT_TRUE(P("a.??").Overlaps(P("a.x*")));
  EXPECT_FALSE(P("a.??").Overlaps(P("a.???*")));
  EXPECT_TRUE(P("a.*a*").Overlaps(P("a.*b*")));
}

std::vector<TableRule> Rules(std::vector<std::vector<std::string>> matches) {
  std::vector<TableRule> rules;
  for (auto& match : matches) {
    TableRule rule;
    rule.match = match;
    for (const auto& text : match) rule.patterns.push_back(TablePattern::Parse(text));
    rules.push_back(rule);
  }
  return rules;
}

TEST(ConfigMatcher, FirstMatchingRuleWins) {
  TableMatcher matcher(Rules({{"shop.orders"}, {"shop.*", "blog.posts"}, {"*.orders"}}));
  EXPECT_EQ(matcher.Match("shop", "orders"), 0);
  EXPECT_EQ(matcher.Match("shop", "items"), 1);
  EXPECT_EQ(matcher.Match("blog", "posts"), 1);
  EXPECT_EQ(matcher.Match("blog", "orders"), 2);
  EXPECT_EQ(matcher.Match("blog", "comments"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.Match("shopx", "y"), TableMatcher::kNoRule);
}

TEST(ConfigMatcher, CachesDecisionsWithoutMixingUpNames) {
  TableMatcher matcher(Rules({{"*.ab"}, {"*.b"}}));
  EXPECT_EQ(matcher.Match("a", "b"), 1);
  EXPECT_EQ(matcher.Match("", "ab"), 0);  // same concatenation "ab", different split
  EXPECT_EQ(matcher.Match("a", "b"), 1);
  EXPECT_EQ(matcher.Match("x", "c"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.cached_decisions(), 3u);
  EXPECT_EQ(matcher.Match("x", "c"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.cached_decisions(), 3u);
}

TEST(ConfigMatcher, LiteralDatabasesRejectOthersWithoutCaching) {
  TableMatcher matcher(Rules({{"shop.*"}, {"blog.p?sts"}}));
  EXPECT_EQ(matcher.Match("other", "x"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.Match("mysql", "user"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.cached_decisions(), 0u);
  EXPECT_EQ(matcher.Match("blog", "posts"), 1);
  EXPECT_EQ(matcher.Match("blog", "pests"), 1);
  EXPECT_EQ(matcher.Match("blog", "comments"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.cached_decisions(), 3u);
}

TEST(ConfigMatcher, ExcludedTablesFallThroughToLaterRules) {
  std::vector<TableRule> rules = Rules({{"shop.*"}, {"*.tmp_keep"}});
  rules[0].exclude = {"shop.tmp_*", "shop.`a.b`"};
  for (const auto& text : rules[0].exclude) {
    rules[0].exclude_patterns.push_back(TablePattern::Parse(text));
  }
  TableMatcher matcher(rules);
  EXPECT_EQ(matcher.Match("shop", "a"), 0);
  EXPECT_EQ(matcher.Match("shop", "tmp"), 0);  // the exclude needs the underscore
  EXPECT_EQ(matcher.Match("shop", "tmp_x"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.Match("shop", "tmp_keep"), 1);
  EXPECT_EQ(matcher.Match("shop", "a.b"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.Match("shop", "a_b"), 0);
  // Cached decisions keep the exclusion.
  EXPECT_EQ(matcher.Match("shop", "tmp_x"), TableMatcher::kNoRule);
  EXPECT_EQ(matcher.Match("shop", "tmp_keep"), 1);
}

TEST(ConfigMatcher, RulesMatchingNothingAreNamed) {
  std::vector<TableRule> rules = Rules({{"shop.*"}, {"shop.orders"}, {"blog.*", "app.x"}});
  rules[0].exclude = {"shop.tmp_*"};
  rules[0].exclude_patterns.push_back(TablePattern::Parse("shop.tmp_*"));
  rules[0].line = 4;
  rules[1].line = 6;
  rules[2].line = 7;
  EXPECT_EQ(RulesMatchingNothing(rules, {{"shop", "a"}, {"shop", "tmp_1"}, {"blog", "p"}}),
            std::vector<std::string>{
                "tables[1] (line 6, match shop.orders) matches no table of the source (or earlier "
                "rules take every table it matches)"});
  EXPECT_EQ(RulesMatchingNothing(rules, {{"shop", "tmp_1"}, {"app", "y"}}),
            (std::vector<std::string>{
                "tables[0] (line 4, match shop.*, exclude shop.tmp_*) matches no table of the "
                "source",
                "tables[1] (line 6, match shop.orders) matches no table of the source (or earlier "
                "rules take every table it matches)",
                "tables[2] (line 7, match blog.*, app.x) matches no table of the source (or "
                "earlier rules take every table it matches)"}));
}

TEST(ConfigMatcher, NoRulesMatchNothing) {
  TableMatcher matcher(std::vector<TableRule>{});
  EXPECT_EQ(matcher.Match("a", "b"), TableMatcher::kNoRule);
}

std::string TargetError(std::string_view text) {
  try {
    ValidateTargetTemplate(text);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for target " << text;
  return "";
}

TEST(ConfigTarget, ExpandsPlaceholdersAndQualifies) {
  EXPECT_EQ(ExpandTarget("{table}", "analytics", "shop", "orders"),
            (QualifiedName{"analytics", "orders"}));
  EXPECT_EQ(ExpandTarget("{db}.{table}", "analytics", "shop", "orders"),
            (QualifiedName{"shop", "orders"}));
  EXPECT_EQ(ExpandTarget("{db}_{table}", "analytics", "shop", "orders"),
            (QualifiedName{"analytics", "shop_orders"}));
  EXPECT_EQ(ExpandTarget("archive.{table}_v2", "analytics", "shop", "orders"),
            (QualifiedName{"archive", "orders_v2"}));
  EXPECT_EQ(ExpandTarget("bifrost_test.binlog_field_test_1", "analytics", "bifrost_test",
                         "binlog_field_test_7"),
            (QualifiedName{"bifrost_test", "binlog_field_test_1"}));
  EXPECT_EQ(ExpandTarget("`my.db`.`{table}`", "analytics", "shop", "orders"),
            (QualifiedName{"my.db", "{table}"}));
  EXPECT_EQ(ExpandTarget("{table}", "analytics", "shop", "a.b"),
            (QualifiedName{"analytics", "a.b"}));
  EXPECT_TRUE(TargetHasPlaceholders("x_{db}"));
  EXPECT_FALSE(TargetHasPlaceholders("a.b"));
  EXPECT_FALSE(TargetHasPlaceholders("`{db}`"));
}

TEST(ConfigTarget, BadTargetsSayWhy) {
  EXPECT_EQ(TargetError("{schema}.x"),
            "target \"{schema}.x\" has an unknown placeholder {schema} (the placeholders are {db} "
            "and {table})");
  EXPECT_EQ(TargetError("a.{table"), "target \"a.{table\" has an unclosed { at character 3");
  EXPECT_EQ(TargetError("a}"), "target \"a}\" has a } without { at character 2");
  EXPECT_EQ(TargetError("a.b.c"),
            "target \"a.b.c\" has more than one dot; quote names that contain dots with backticks");
  EXPECT_EQ(TargetError(".x"), "target \".x\" has an empty database name");
  EXPECT_EQ(TargetError("x."), "target \"x.\" has an empty table name");
  EXPECT_EQ(TargetError(""), "target \"\" has an empty table name");
  EXPECT_EQ(TargetError("``"), "target \"``\" has an empty table name");
  EXPECT_EQ(TargetError("`x"), "target \"`x\" has an unterminated backtick at character 1");
  EXPECT_EQ(TargetError("a b"),
            "target \"a b\" contains unquoted whitespace or a control character; quote such "
            "names with backticks");
}

}  // namespace
}  // namespace rowbridge::config
