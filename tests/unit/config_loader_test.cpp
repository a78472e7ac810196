#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "common/error.h"
#include "config/effective_config.h"
#include "config/loader.h"
#include "config/table_matcher.h"
#include "config/target_template.h"
#include "support/paths.h"

namespace rowbridge::config {
namespace {

using std::chrono::milliseconds;

LoadOptions WithEnv(std::map<std::string, std::string> vars) {
  LoadOptions options;
  options.env = [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  return options;
}

std::string ReadData(const std::string& name) {
  std::ifstream in(rowbridge::testing::TestDataDir() / "config" / name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

constexpr const char* kMinimal = R"(
source: {host: db, user: repl, server_id: 7}
target: {host: ch}
tables: [{match: shop.*}]
)";

TEST(ConfigLoader, FillsEveryDefault) {
  Config c = ParseConfig(kMinimal, "minimal.yaml", WithEnv({}));
  EXPECT_EQ(c.source.host, "db");
  EXPECT_EQ(c.source.port, 3306);
  EXPECT_EQ(c.source.password, "");
  EXPECT_EQ(c.source.server_id, 7u);
  EXPECT_EQ(c.source.flavor, SourceFlavor::kAuto);
  EXPECT_EQ(c.source.on_statement_dml, StatementDml::kStopTable);
  EXPECT_EQ(c.source.on_purged_position, OnPurged::kStop);
  EXPECT_EQ(c.source.binlog_retention.check_interval, milliseconds(60000));
  EXPECT_EQ(c.source.binlog_retention.warn_below, milliseconds(6 * 3600 * 1000));
  EXPECT_EQ(c.source.tls.mode, TlsMode::kPreferred);
  EXPECT_EQ(c.source.heartbeat_period, milliseconds(5000));
  EXPECT_EQ(c.source.connect_timeout, milliseconds(10000));
  EXPECT_EQ(c.source.read_timeout, milliseconds(30000));
  EXPECT_EQ(c.source.reconnect.initial_backoff, milliseconds(1000));
  EXPECT_EQ(c.source.reconnect.max_backoff, milliseconds(60000));
  EXPECT_EQ(c.target.port, 9000);
  EXPECT_EQ(c.target.user, "default");
  EXPECT_EQ(c.target.database, "default");
  EXPECT_EQ(c.target.tls.mode, TlsMode::kDisabled);
  EXPECT_EQ(c.target.compression, Compression::kAuto);
  EXPECT_EQ(c.target.cluster, "");
  EXPECT_EQ(c.target.writers, 4u);
  ASSERT_EQ(c.tables.size(), 1u);
  const TableRule& rule = c.tables[0];
  EXPECT_EQ(rule.match, std::vector<std::string>{"shop.*"});
  EXPECT_EQ(rule.target, "{table}");
  EXPECT_EQ(rule.mode, TableMode::kReplica);
  EXPECT_TRUE(rule.key.empty());
  EXPECT_EQ(rule.meta_columns.version, "_version");
  EXPECT_EQ(rule.meta_columns.is_deleted, "_is_deleted");
  EXPECT_EQ(rule.meta_columns.event_type, "_event_type");
  EXPECT_EQ(rule.conversion.on_out_of_range, OutOfRange::kError);
  EXPECT_EQ(rule.conversion.datetime_timezone, "UTC");
  EXPECT_TRUE(rule.create_table);
  EXPECT_EQ(rule.line, 4);
  EXPECT_TRUE(c.snapshot.enabled);
  EXPECT_EQ(c.snapshot.chunk_rows, 100000u);
  EXPECT_EQ(c.snapshot.readers, 3u);
  EXPECT_EQ(c.snapshot.writers, 6u);
  EXPECT_EQ(c.snapshot.memory_limit, 48u << 20);
  EXPECT_EQ(c.batch.max_rows, 100000u);
  EXPECT_EQ(c.batch.max_bytes, 64u << 20);
  EXPECT_EQ(c.batch.max_delay, milliseconds(1000));
  EXPECT_EQ(c.batch.min_interval, milliseconds(500));
  EXPECT_EQ(c.batch.part_rows, 8192u);
  EXPECT_EQ(c.memory.max_buffered_bytes, 1u << 30);
  EXPECT_EQ(c.state.store, StateStore::kClickhouse);
  EXPECT_EQ(c.state.table, "rowbridge_state");
  EXPECT_TRUE(c.http.enabled);
  EXPECT_EQ(c.http.listen, "127.0.0.1:9480");
  EXPECT_EQ(c.http.health.max_silence, milliseconds(60000));
  EXPECT_FALSE(c.http.health.max_lag.has_value());
  EXPECT_EQ(c.log.level, LogLevel::kInfo);
  EXPECT_EQ(c.log.format, LogFormat::kText);
  EXPECT_EQ(c.ha.lock, HaLock::kNone);
  EXPECT_EQ(c.ha.lease, milliseconds(2000));
}

TEST(ConfigLoader, ReadsEveryKey) {
  LoadOptions options = WithEnv({{"MYSQL_PASSWORD", "pw1"}, {"PORT", "3307"}});
  Config c = ParseConfig(ReadData("valid_every_key.yaml"), "every.yaml", options);
  EXPECT_EQ(c.source.port, 3307);
  EXPECT_EQ(c.source.password, "pw1");
  EXPECT_EQ(c.source.server_id, 4294967295u);
  EXPECT_EQ(c.source.flavor, SourceFlavor::kMariadb);
  EXPECT_EQ(c.source.tls.mode, TlsMode::kVerifyIdentity);
  EXPECT_EQ(c.source.tls.ca, "/etc/ssl/mysql-ca.pem");
  EXPECT_EQ(c.source.tls.key, "/etc/ssl/client.key");
  EXPECT_EQ(c.source.heartbeat_period, milliseconds(2000));
  EXPECT_EQ(c.source.reconnect.initial_backoff, milliseconds(500));
  EXPECT_EQ(c.source.reconnect.max_backoff, milliseconds(120000));
  EXPECT_EQ(c.source.binlog_retention.check_interval, milliseconds(30000));
  EXPECT_EQ(c.source.binlog_retention.warn_below, milliseconds(2 * 86400 * 1000));
  EXPECT_EQ(c.source.on_statement_dml, StatementDml::kStopRun);
  EXPECT_EQ(c.source.on_purged_position, OnPurged::kRecopy);
  EXPECT_EQ(c.target.port, 9440);  // from the ${CH_PORT:-9440} default
  EXPECT_EQ(c.target.password, "");
  EXPECT_EQ(c.target.tls.mode, TlsMode::kVerifyCa);
  EXPECT_EQ(c.target.compression, Compression::kZstd);
  EXPECT_EQ(c.target.cluster, "main");
  EXPECT_EQ(c.target.writers, 8u);
  EXPECT_EQ(c.target.query_timeout, milliseconds(600000));
  ASSERT_EQ(c.tables.size(), 2u);
  EXPECT_EQ(c.tables[0].match, (std::vector<std::string>{"shop.orders", "shop.order_items"}));
  EXPECT_EQ(c.tables[0].key, std::vector<std::string>{"id"});
  EXPECT_EQ(c.tables[0].partition_by, "toYYYYMM(created_at)");
  EXPECT_EQ(c.tables[0].meta_columns.is_deleted, "deleted");
  EXPECT_EQ(c.tables[0].conversion.on_out_of_range, OutOfRange::kClamp);
  EXPECT_EQ(c.tables[0].conversion.datetime_timezone, "Europe/Berlin");
  EXPECT_FALSE(c.tables[0].create_table);
  EXPECT_EQ(ExpandTarget(c.tables[0].target, c.target.database, "shop", "orders"),
            (QualifiedName{"analytics", "shop_orders"}));
  EXPECT_TRUE(c.tables[1].patterns[0].Matches("my.db", "log.*"));
  EXPECT_EQ(c.tables[1].mode, TableMode::kChangelog);
  EXPECT_EQ(c.tables[1].meta_columns.event_type, "op");
  EXPECT_FALSE(c.snapshot.enabled);
  EXPECT_EQ(c.snapshot.memory_limit, 32u << 20);
  EXPECT_EQ(c.batch.max_bytes, 8u << 20);
  EXPECT_EQ(c.batch.max_delay, milliseconds(250));
  EXPECT_EQ(c.memory.max_buffered_bytes, 2ULL << 30);
  EXPECT_EQ(c.state.store, StateStore::kFile);
  EXPECT_EQ(c.state.path, "/var/lib/rowbridge");
  EXPECT_EQ(c.http.listen, "[::1]:9999");
  EXPECT_EQ(c.http.health.max_lag, milliseconds(300000));
  EXPECT_EQ(c.log.level, LogLevel::kDebug);
  EXPECT_EQ(c.log.format, LogFormat::kJson);
}

TEST(ConfigLoader, TlsOnTheTargetMovesTheDefaultPort) {
  Config c = ParseConfig(R"(
source: {host: db, user: repl, server_id: 7}
target: {host: ch, tls: {mode: required}}
tables: [{match: shop.*}]
)",
                         "x.yaml", WithEnv({}));
  EXPECT_EQ(c.target.port, 9440);
}

TEST(ConfigLoader, EnvironmentFeedsNumbersSizesAndDurations) {
  Config c = ParseConfig(
      R"(
source: {host: db, user: repl, server_id: "${ID}", read_timeout: "${RT:-45s}"}
target: {host: "${CH_HOST}"}
tables: [{match: "${DB}.*"}]
batch: {max_bytes: "${BYTES}"}
)",
      "x.yaml", WithEnv({{"ID", "99"}, {"CH_HOST", "ch1"}, {"DB", "shop"}, {"BYTES", "2MiB"}}));
  EXPECT_EQ(c.source.server_id, 99u);
  EXPECT_EQ(c.source.read_timeout, milliseconds(45000));
  EXPECT_EQ(c.target.host, "ch1");
  EXPECT_TRUE(c.tables[0].patterns[0].Matches("shop", "x"));
  EXPECT_EQ(c.batch.max_bytes, 2u << 20);
}

TEST(ConfigLoader, ProblemsAreOneConfigError) {
  try {
    ParseConfig(
        "source: {host: h, user: u, server_id: 1, port: x}\ntarget: {host: h}\n"
        "tables: [{match: a.b}]\nlog: {lvl: info}\n",
        "c.yaml", WithEnv({}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    EXPECT_EQ(std::string(e.what()),
              "c.yaml: 2 configuration problems:\n"
              "  c.yaml:1:48: source.port: expected an integer from 1 to 65535, got \"x\"\n"
              "  c.yaml:4:7: log.lvl: unknown key (did you mean level?)");
  }
}

TEST(ConfigLoader, HaSectionIsReadAndChecked) {
  const std::string base =
      "source: {host: h, user: u, server_id: 1}\ntarget: {host: h}\ntables: [{match: a.b}]\n";
  Config c = ParseConfig(base + "ha: {lock: source, lease: 1500ms}\n", "c.yaml", WithEnv({}));
  EXPECT_EQ(c.ha.lock, HaLock::kSource);
  EXPECT_EQ(c.ha.lease, milliseconds(1500));
  try {
    ParseConfig(base + "ha: {lock: zookeper, lease: 100ms}\n", "c.yaml", WithEnv({}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    const std::string message = e.what();
    EXPECT_NE(message.find("ha.lock"), std::string::npos) << message;
    EXPECT_NE(message.find("ha.lease"), std::string::npos) << message;
  }
}

TEST(ConfigLoader, ZooKeeperLockIsReadAndChecked) {
  const std::string base =
      "source: {host: h, user: u, server_id: 1}\ntarget: {host: h}\ntables: [{match: a.b}]\n";
  Config c = ParseConfig(base + "ha: {lock: zookeeper, hosts: \"zk1:2181,zk2:2181\"}\n", "c.yaml",
                         WithEnv({}));
  EXPECT_EQ(c.ha.lock, HaLock::kZooKeeper);
  EXPECT_EQ(c.ha.hosts, "zk1:2181,zk2:2181");
  EXPECT_EQ(c.ha.path, "/rowbridge");
  EXPECT_EQ(c.ha.lease, milliseconds(2000));
  EXPECT_EQ(EffectiveConfigJson(c)["ha"]["hosts"], "zk1:2181,zk2:2181");
  c = ParseConfig(
      base + "ha: {lock: zookeeper, hosts: \"[::1]:2181\", path: /jobs/rb, lease: 3s}\n", "c.yaml",
      WithEnv({}));
  EXPECT_EQ(c.ha.path, "/jobs/rb");
  EXPECT_EQ(c.ha.lease, milliseconds(3000));

  // Each bad config and the words its message must hold.
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
      {"ha: {lock: zookeeper}", {"c.yaml:4:", "ha.hosts", "is required with ha.lock: zookeeper"}},
      {"ha: {lock: zookeeper, hosts: \"\"}", {"ha.hosts", "must not be empty"}},
      {"ha: {lock: zookeeper, hosts: \"zk1:2181,zk2\"}", {"ha.hosts", "\"zk2\"", "not host:port"}},
      {"ha: {lock: zookeeper, hosts: \"zk1:2181/rb\"}", {"ha.hosts", "put it in ha.path"}},
      {"ha: {lock: zookeeper, hosts: \"zk1:2181\", path: rb}", {"ha.path", "absolute"}},
      {"ha: {lock: zookeeper, hosts: \"zk1:2181\", path: /rb/}", {"ha.path", "end with /"}},
      {"ha: {lock: zookeeper, hosts: \"zk1:2181\", path: /a//b}", {"ha.path", "//"}},
      {"ha: {lock: source, hosts: \"zk1:2181\"}",
       {"ha.hosts", "only a ZooKeeper lock has hosts, and ha.lock is source"}},
      {"ha: {path: /rb}", {"ha.path", "ha.lock is none"}},
  };
  for (const auto& [yaml, words] : bad) {
    try {
      ParseConfig(base + yaml + "\n", "c.yaml", WithEnv({}));
      ADD_FAILURE() << "expected an error for " << yaml;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kConfig) << yaml;
      for (const std::string& word : words) {
        EXPECT_NE(std::string(e.what()).find(word), std::string::npos)
            << yaml << " -> " << e.what() << " (missing: " << word << ")";
      }
    }
  }
}

TEST(ConfigLoader, FilesResolveRelativePathsAgainstTheirDirectory) {
  auto dir = std::filesystem::temp_directory_path() / ("rowbridge_cfg_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "rowbridge.yaml";
  {
    std::ofstream out(file);
    out << "source: {host: db, user: repl, server_id: 7, tls: {mode: verify-ca, ca: "
           "certs/ca.pem}}\n"
           "target: {host: ch}\ntables: [{match: a.b}]\nstate: {store: file, path: ./state}\n";
  }
  Config c = LoadConfigFile(file.string(), WithEnv({}));
  EXPECT_EQ(c.source.tls.ca, (dir / "certs/ca.pem").string());
  EXPECT_EQ(c.state.path, (dir / "state").string());
  std::filesystem::remove_all(dir);
}

TEST(ConfigLoader, AnAdminAddressOthersCanReachNeedsAToken) {
  const std::string base =
      "source: {host: h, user: u, server_id: 1}\ntarget: {host: h}\ntables: [{match: a.b}]\n";
  for (const char* listen : {"0.0.0.0:9480", "10.1.2.3:9480", "[::]:9480"}) {
    try {
      ParseConfig(base + "http: {listen: \"" + listen + "\"}\n", "c.yaml", WithEnv({}));
      ADD_FAILURE() << listen << " accepted without a token";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("http.listen: \"" + std::string(listen) +
                                           "\" is reachable from other hosts"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("set http.token"), std::string::npos) << e.what();
    }
  }
  Config c = ParseConfig(base + "http: {listen: \"0.0.0.0:9480\", token: \"${TOKEN}\"}\n", "c.yaml",
                         WithEnv({{"TOKEN", "t0ken-value"}}));
  EXPECT_EQ(c.http.token, "t0ken-value");
  EXPECT_EQ(EffectiveConfigJson(c)["http"]["token"], "***");
  // Loopback needs none; a disabled server none either.
  EXPECT_TRUE(ParseConfig(base + "http: {listen: \"127.0.0.1:0\"}\n", "c.yaml", WithEnv({}))
                  .http.token.empty());
  ParseConfig(base + "http: {enabled: false, listen: \"0.0.0.0:9480\"}\n", "c.yaml", WithEnv({}));
}

TEST(ConfigLoader, ASecretIsNeverEchoedEvenWhenItsDollarBraceIsBad) {
  const std::string secret = "Xy${7hunter}-secret";
  try {
    ParseConfig("source: {host: h, user: u, server_id: 1, password: \"" + secret +
                    "\"}\ntarget: {host: h}\ntables: [{match: a.b}]\n",
                "c.yaml", WithEnv({}));
    FAIL() << "a malformed ${ reference was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("source.password: a \"${...}\" at character 3 is not a valid variable "
                           "reference (the value is a secret and is not shown)"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("hunter"), std::string::npos) << message;
    EXPECT_EQ(message.find("7h"), std::string::npos) << message;
  }
}

TEST(ConfigLoader, AFileOthersCanReadWithALiteralSecretIsWarnedAbout) {
  auto dir =
      std::filesystem::temp_directory_path() / ("rowbridge_cfg_mode_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "rowbridge.yaml";
  auto load_warnings = [&](const std::string& text, std::filesystem::perms perms) {
    {
      std::ofstream out(file);
      out << text;
    }
    std::filesystem::permissions(file, perms);
    std::vector<std::string> warnings;
    LoadOptions options = WithEnv({{"PW", "from-env"}});
    options.warnings = &warnings;
    LoadConfigFile(file.string(), options);
    return warnings;
  };
  using P = std::filesystem::perms;
  const P world_readable = P::owner_read | P::owner_write | P::group_read | P::others_read;
  const std::string tail = "target: {host: ch, password: \"${PW}\"}\ntables: [{match: a.b}]\n";
  std::vector<std::string> warned = load_warnings(
      "source: {host: db, user: u, server_id: 7, password: literal-pw}\n" + tail, world_readable);
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_NE(warned[0].find("every user of this machine can read it (mode 0644), and it holds "
                           "source.password as text; `chmod 600 " +
                           file.string() + "`"),
            std::string::npos)
      << warned[0];
  EXPECT_EQ(warned[0].find("literal-pw"), std::string::npos) << warned[0];
  // Owner-only, or every secret from the environment: nothing to say.
  EXPECT_TRUE(
      load_warnings("source: {host: db, user: u, server_id: 7, password: literal-pw}\n" + tail,
                    P::owner_read | P::owner_write)
          .empty());
  EXPECT_TRUE(
      load_warnings("source: {host: db, user: u, server_id: 7, password: \"${PW}\"}\n" + tail,
                    world_readable)
          .empty());
  std::filesystem::remove_all(dir);
}

TEST(ConfigLoader, MissingFileIsAnIoError) {
  try {
    LoadConfigFile("/nonexistent/rowbridge.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_EQ(std::string(e.what()),
              "cannot open config file /nonexistent/rowbridge.yaml: No such file or directory");
  }
}

TEST(ConfigLoader, OversizedInputIsRejected) {
  std::string huge(2 << 20, '#');
  try {
    ParseConfig(huge, "big.yaml", WithEnv({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConfig);
    EXPECT_EQ(std::string(e.what()),
              "big.yaml: is 2097152 bytes; a config file may have at most 1MiB");
  }
}

TEST(ConfigLoader, MatcherFollowsTheIssueExample) {
  Config c = ParseConfig(ReadData("valid_issue_example.yaml"), "issue.yaml",
                         WithEnv({{"MYSQL_PASSWORD", "a"}, {"CH_PASSWORD", "b"}}));
  TableMatcher matcher(c.tables);
  EXPECT_EQ(matcher.Match("shop", "orders"), 0);
  EXPECT_EQ(matcher.Match("bifrost_test", "binlog_field_test_12"), 1);
  EXPECT_EQ(matcher.Match("shop", "customers"), TableMatcher::kNoRule);
  EXPECT_EQ(
      ExpandTarget(c.tables[1].target, c.target.database, "bifrost_test", "binlog_field_test_12"),
      (QualifiedName{"bifrost_test", "binlog_field_test_1"}));
  EXPECT_EQ(ExpandTarget(c.tables[0].target, c.target.database, "shop", "orders"),
            (QualifiedName{"analytics", "orders"}));
}

TEST(ConfigEffective, RedactsPasswordsInJsonAndYaml) {
  Config c = ParseConfig(
      ReadData("valid_issue_example.yaml"), "issue.yaml",
      WithEnv({{"MYSQL_PASSWORD", "mysql-secret-1"}, {"CH_PASSWORD", "clickhouse-secret-2"}}));
  for (RenderFormat format : {RenderFormat::kJson, RenderFormat::kYaml}) {
    std::string text = RenderEffectiveConfig(c, format);
    EXPECT_EQ(text.find("mysql-secret-1"), std::string::npos) << text;
    EXPECT_EQ(text.find("clickhouse-secret-2"), std::string::npos) << text;
  }
  nlohmann::ordered_json json = EffectiveConfigJson(c);
  EXPECT_EQ(json["source"]["password"], "***");
  EXPECT_EQ(json["target"]["password"], "***");
  EXPECT_EQ(json["batch"]["max_bytes"], "64MiB");
  EXPECT_EQ(json["tables"][1]["meta_columns"]["event_type"], "binlog_event_type");
  c.source.password.clear();
  EXPECT_EQ(EffectiveConfigJson(c)["source"]["password"], "");
}

TEST(ConfigEffective, YamlRenderingLoadsBackToTheSameConfig) {
  for (const char* file :
       {"valid_every_key.yaml", "valid_issue_example.yaml", "valid_minimal.yaml"}) {
    SCOPED_TRACE(file);
    LoadOptions options =
        WithEnv({{"MYSQL_PASSWORD", "pw1"}, {"CH_PASSWORD", "pw2"}, {"PORT", "3307"}});
    Config original = ParseConfig(ReadData(file), file, options);
    std::string yaml = RenderEffectiveConfig(original, RenderFormat::kYaml);
    Config reloaded = ParseConfig(yaml, "rendered.yaml", options);
    EXPECT_EQ(RenderEffectiveConfig(reloaded, RenderFormat::kYaml), yaml);
    EXPECT_EQ(RenderEffectiveConfig(reloaded, RenderFormat::kJson),
              RenderEffectiveConfig(original, RenderFormat::kJson));
  }
}

TEST(ConfigEffective, RendersTheMinimalConfigExactly) {
  Config c = ParseConfig(kMinimal, "minimal.yaml", WithEnv({}));
  EXPECT_EQ(RenderEffectiveConfig(c, RenderFormat::kYaml), R"(source:
  host: db
  port: 3306
  user: repl
  password: ""
  server_id: 7
  flavor: auto
  tls:
    mode: preferred
  heartbeat_period: 5s
  connect_timeout: 10s
  read_timeout: 30s
  reconnect:
    initial_backoff: 1s
    max_backoff: 1m
  on_statement_dml: stop_table
  on_purged_position: stop
  binlog_retention:
    check_interval: 1m
    warn_below: 6h
target:
  host: ch
  port: 9000
  user: default
  password: ""
  database: default
  tls:
    mode: disabled
  compression: auto
  writers: 4
  connect_timeout: 10s
  query_timeout: 5m
tables:
  - match: shop.*
    target: "{table}"
    mode: replica
    meta_columns:
      version: _version
      is_deleted: _is_deleted
    conversion:
      on_out_of_range: error
      datetime_timezone: UTC
    create_table: true
snapshot:
  enabled: true
  chunk_rows: 100000
  readers: 3
  writers: 6
  memory_limit: 48MiB
  keyless_single_chunk: false
batch:
  max_rows: 100000
  max_bytes: 64MiB
  max_delay: 1s
  min_interval: 500ms
  part_rows: 8192
memory:
  max_buffered_bytes: 1GiB
state:
  store: clickhouse
  checkpoint_interval: 1s
  table: rowbridge_state
http:
  enabled: true
  listen: 127.0.0.1:9480
  health:
    max_silence: 1m
ha:
  lock: none
  lease: 2s
log:
  level: info
  format: text
)");
}

}  // namespace
}  // namespace rowbridge::config

namespace rowbridge::config {
namespace {

TEST(ConfigLoader, TooManyPatternsAreRejected) {
  std::string text = "source: {host: h, user: u, server_id: 1}\ntarget: {host: h}\ntables:\n";
  for (int i = 0; i <= 1000; ++i) text += fmt::format("  - match: db.t{}\n", i);
  try {
    ParseConfig(text, "many.yaml", WithEnv({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "many.yaml: 1 configuration problem:\n"
              "  many.yaml:4:3: tables: has more than 1000 patterns; use wildcards");
  }
}

}  // namespace
}  // namespace rowbridge::config
