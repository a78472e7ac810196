#include "clickhouse/packets.h"

#include <gtest/gtest.h>

#include "clickhouse/block.h"
#include "clickhouse/columns/numeric.h"
#include "clickhouse/columns/string.h"
#include "clickhouse/compression.h"
#include "common/error.h"
#include "support/expect_error.h"

namespace rowbridge::clickhouse {
namespace {

using ::rowbridge::testing::ErrorOf;

constexpr uint64_t kRevision1816 = 54412;  // what Debian's ClickHouse 18.16.1 announces

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(ClickHousePackets, ClientHelloLayout) {
  WireWriter out;
  ClientHello hello{"rb", 0, 1, 54429, "db", "default", "pw"};
  WriteClientHello(out, hello);
  EXPECT_EQ(out.data(), Bytes({0, 2,   'r', 'b', 0,   1,   0x9d, 0xa9, 0x03, 2,   'd', 'b',
                               7, 'd', 'e', 'f', 'a', 'u', 'l',  't',  2,    'p', 'w'}));
  hello.password = "a\nb";
  EXPECT_EQ(ErrorOf([&] { WriteClientHello(out, hello); }).code(), ErrorCode::kInvalidArgument);
  hello.password = "";
  hello.user = "";
  EXPECT_EQ(ErrorOf([&] { WriteClientHello(out, hello); }).code(), ErrorCode::kInvalidArgument);
}

TEST(ClickHousePackets, ReadsTheHelloOfClickHouse1816) {
  // Captured from clickhouse-server 18.16.1 answering a client of revision 54429.
  const std::string body =
      Bytes({10,   'C',  'l', 'i', 'c', 'k', 'H', 'o', 'u', 's', 'e', 0x12, 0x10, 0x8c,
             0xa9, 0x03, 7,   'E', 't', 'c', '/', 'U', 'T', 'C', 2,   'v',  'm',  1});
  BufferWireReader in(body);
  ServerHello hello = ReadServerHello(in, kClientRevision);
  EXPECT_TRUE(in.AtEnd());
  EXPECT_EQ(hello.name, "ClickHouse");
  EXPECT_EQ(hello.version_major, 18u);
  EXPECT_EQ(hello.version_minor, 16u);
  EXPECT_EQ(hello.revision, kRevision1816);
  EXPECT_EQ(hello.timezone, "Etc/UTC");
  EXPECT_EQ(hello.display_name, "vm");
  EXPECT_EQ(hello.version_patch, 1u);
}

TEST(ClickHousePackets, HelloFieldsFollowTheLowerRevision) {
  // A server at 54050: no time zone, display name or patch; the patch defaults to its revision.
  WireWriter w;
  w.String("ClickHouse");
  w.VarUInt(1);
  w.VarUInt(1);
  w.VarUInt(54050);
  BufferWireReader in(w.data());
  ServerHello hello = ReadServerHello(in, kClientRevision);
  EXPECT_TRUE(in.AtEnd());
  EXPECT_EQ(hello.timezone, "");
  EXPECT_EQ(hello.version_patch, 54050u);
}

std::string ExceptionBytes(int32_t code, std::string_view name, std::string_view message,
                           bool nested) {
  WireWriter w;
  w.Fixed<int32_t>(code);
  w.String(name);
  w.String(message);
  w.String("0. DB::Exception::Exception() @ 0x1\n1. main\n");
  w.Fixed<uint8_t>(nested ? 1 : 0);
  return w.data();
}

TEST(ClickHousePackets, ExceptionChainBecomesOneServerError) {
  std::string bytes = ExceptionBytes(60, "DB::Exception", "Table x.y doesn't exist.", true) +
                      ExceptionBytes(1000, "Poco::Exception", "inner cause", false);
  BufferWireReader in(bytes);
  std::vector<ServerException> chain = ReadException(in);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_TRUE(in.AtEnd());
  Error e = ServerExceptionError(chain, "127.0.0.1:9000");
  EXPECT_EQ(e.code(), ErrorCode::kServer);
  EXPECT_EQ(e.server_code(), 60);
  EXPECT_STREQ(e.what(),
               "ClickHouse server 127.0.0.1:9000: Code: 60. DB::Exception: Table x.y doesn't "
               "exist.; caused by: Code: 1000. Poco::Exception: inner cause");
}

TEST(ClickHousePackets, MalformedExceptionsAreCorruption) {
  std::string bad_flag = ExceptionBytes(1, "n", "m", false);
  bad_flag.back() = 2;
  BufferWireReader in(bad_flag);
  EXPECT_EQ(ErrorOf([&] { ReadException(in); }).code(), ErrorCode::kCorruption);
  // A chain that never ends is cut off, not followed forever.
  std::string endless;
  for (int i = 0; i < 100; ++i) endless += ExceptionBytes(1, "n", "m", true);
  BufferWireReader in2(endless);
  EXPECT_EQ(ErrorOf([&] { ReadException(in2); }).code(), ErrorCode::kCorruption);
}

TEST(ClickHousePackets, ProgressFieldsDependOnRevision) {
  WireWriter w;
  for (uint64_t v : {1, 2, 3, 4, 5}) w.VarUInt(v);
  {
    BufferWireReader in(w.data());
    Progress p = ReadProgress(in, kRevision1816);
    EXPECT_EQ(p.read_rows, 1u);
    EXPECT_EQ(p.total_rows_to_read, 3u);
    EXPECT_EQ(p.written_rows, 0u);
    EXPECT_FALSE(in.AtEnd());  // 18.16 sends no write info
  }
  BufferWireReader in(w.data());
  Progress p = ReadProgress(in, kClientRevision);
  EXPECT_EQ(p.written_rows, 4u);
  EXPECT_EQ(p.written_bytes, 5u);
  EXPECT_TRUE(in.AtEnd());
  p.Add(p);
  EXPECT_EQ(p.written_bytes, 10u);
}

TEST(ClickHousePackets, SettingsAreBinaryForOldServersAndTextForNew) {
  QuerySettings s;
  s.SetUInt("max_block_size", 300).SetInt("lvl", -1).SetText("mode", "local");
  s.SetUInt("max_block_size", 1);  // replaces
  WireWriter old_format;
  s.Write(old_format, kRevision1816);
  std::string expected_old;
  {
    WireWriter w;
    w.String("max_block_size");
    w.VarUInt(1);
    w.String("lvl");
    w.VarUInt(1);  // zig-zag of -1
    w.String("mode");
    w.String("local");
    w.String("");
    expected_old = w.data();
  }
  EXPECT_EQ(old_format.data(), expected_old);
  WireWriter new_format;
  s.Write(new_format, kClientRevision);
  WireWriter w;
  for (auto [name, value] :
       {std::pair{"max_block_size", "1"}, std::pair{"lvl", "-1"}, std::pair{"mode", "local"}}) {
    w.String(name);
    w.VarUInt(1);  // important
    w.String(value);
  }
  w.String("");
  EXPECT_EQ(new_format.data(), w.data());
  EXPECT_EQ(ErrorOf([&] { s.SetUInt("", 1); }).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ErrorOf([&] { s.SetUInt("a b", 1); }).code(), ErrorCode::kInvalidArgument);
}

// A connection's default settings under a query's own: the query's value wins, kind and all.
TEST(ClickHousePackets, AppliedSettingsReplaceByName) {
  QuerySettings defaults;
  defaults.SetUInt("insert_distributed_sync", 1).SetText("load_balancing", "in_order");
  QuerySettings query;
  query.SetText("insert_distributed_sync", "0").SetInt("lvl", -2);
  defaults.Apply(query);
  ASSERT_EQ(defaults.entries().size(), 3u);
  EXPECT_EQ(defaults.Find("insert_distributed_sync")->text, "0");
  EXPECT_EQ(defaults.Find("insert_distributed_sync")->kind, QuerySettings::Kind::kText);
  EXPECT_EQ(defaults.Find("load_balancing")->text, "in_order");
  EXPECT_EQ(defaults.Find("lvl")->int_value, -2);
}

TEST(ClickHousePackets, QueryPacketLayoutAt1816AndAtOurRevision) {
  QuerySettings settings;
  settings.SetUInt("max_threads", 2);
  QueryPacket q;
  q.query_id = "qid";
  q.client_info.os_user = "u";
  q.client_info.client_hostname = "h";
  q.client_info.client_name = "rowbridge";
  q.client_info.version_minor = 1;
  q.client_info.version_patch = 7;
  q.settings = &settings;
  q.compression = true;
  q.query = "SELECT 1";
  for (uint64_t revision : {kRevision1816, kClientRevision}) {
    WireWriter out;
    WriteQuery(out, q, revision);
    WireWriter w;
    w.VarUInt(1);
    w.String("qid");
    w.Fixed<uint8_t>(1);
    w.String("");
    w.String("");
    w.String("0.0.0.0:0");
    w.Fixed<uint8_t>(1);
    w.String("u");
    w.String("h");
    w.String("rowbridge");
    w.VarUInt(0);
    w.VarUInt(1);
    w.VarUInt(kClientRevision);
    w.String("");  // quota key
    w.VarUInt(7);  // patch
    settings.Write(w, revision);
    w.VarUInt(2);  // complete
    w.VarUInt(1);  // compressed
    w.String("SELECT 1");
    EXPECT_EQ(out.data(), w.data()) << revision;
  }
}

Block SampleBlock(size_t rows) {
  Block block;
  auto& ids = block.AddColumn("id", std::make_unique<ColumnUInt64>());
  auto& names = block.AddColumn("name", std::make_unique<ColumnString>());
  for (size_t i = 0; i < rows; ++i) {
    ids.Append(i);
    names.Append(std::string(i % 50, 'a' + i % 26));
  }
  return block;
}

// A Data packet as a server sends it: type, table name, then the block (compressed or not).
std::string DataPacket(const Block& block, uint64_t revision, bool compressed, size_t frame_size) {
  WireWriter out;
  out.VarUInt(static_cast<uint64_t>(ServerPacket::kData));
  out.String("");
  WireWriter body;
  WriteBlock(body, block, revision);
  if (compressed) {
    FrameCodec codec(CompressionMethod::kLz4);
    codec.Compress(body.data(), out.mutable_data(), frame_size);
  } else {
    out.Bytes(body.data().data(), body.size());
  }
  return out.data();
}

TEST(ClickHousePackets, ReaderDecodesCompressedBlocksSpanningFrames) {
  const Block block = SampleBlock(5000);
  std::string stream = DataPacket(block, kClientRevision, true, 4096) +
                       DataPacket(SampleBlock(3), kClientRevision, true, 4096);
  WireWriter tail;
  tail.VarUInt(static_cast<uint64_t>(ServerPacket::kProgress));
  for (int i = 0; i < 5; ++i) tail.VarUInt(i);
  tail.VarUInt(static_cast<uint64_t>(ServerPacket::kTableColumns));
  tail.String("");
  tail.String("columns format version: 1\n");
  tail.VarUInt(static_cast<uint64_t>(ServerPacket::kEndOfStream));
  stream += tail.data();
  BufferWireReader source(stream);
  PacketReader reader(source, kClientRevision, FrameLimits{}, "test");
  reader.StartQuery(true);
  ServerPacketData p;
  reader.Next(p);
  ASSERT_EQ(p.type, ServerPacket::kData);
  ASSERT_EQ(p.block.RowCount(), 5000u);
  EXPECT_EQ(As<ColumnString>(p.block.Get("name")).At(4999),
            std::string(4999 % 50, 'a' + 4999 % 26));
  reader.Next(p);
  EXPECT_EQ(p.block.RowCount(), 3u);
  reader.Next(p);
  EXPECT_EQ(p.type, ServerPacket::kProgress);
  EXPECT_EQ(p.progress.written_bytes, 4u);
  reader.Next(p);
  EXPECT_EQ(p.type, ServerPacket::kTableColumns);
  EXPECT_EQ(p.table_columns.description, "columns format version: 1\n");
  reader.Next(p);
  EXPECT_EQ(p.type, ServerPacket::kEndOfStream);
  EXPECT_TRUE(source.AtEnd());
}

TEST(ClickHousePackets, BlockEndingInsideAFrameIsAProtocolError) {
  // Two blocks in one compressed frame: the first ends mid-frame.
  WireWriter body;
  WriteBlock(body, SampleBlock(10), kClientRevision);
  WriteBlock(body, SampleBlock(10), kClientRevision);
  WireWriter out;
  out.VarUInt(static_cast<uint64_t>(ServerPacket::kData));
  out.String("");
  FrameCodec codec(CompressionMethod::kZstd);
  codec.Compress(body.data(), out.mutable_data());
  BufferWireReader source(out.data());
  PacketReader reader(source, kClientRevision, FrameLimits{}, "test");
  reader.StartQuery(true);
  ServerPacketData p;
  EXPECT_EQ(ErrorOf([&] { reader.Next(p); }).code(), ErrorCode::kProtocol);
}

TEST(ClickHousePackets, UnexpectedAndUnknownPacketTypesAreProtocolErrors) {
  for (uint64_t type : {0, 9, 12, 13, 15, 16, 17, 18, 19, 1000}) {
    WireWriter w;
    w.VarUInt(type);
    BufferWireReader source(w.data());
    PacketReader reader(source, kClientRevision, FrameLimits{}, "test");
    ServerPacketData p;
    EXPECT_EQ(ErrorOf([&] { reader.Next(p); }).code(), ErrorCode::kProtocol) << type;
  }
}

TEST(ClickHousePackets, EveryTruncationIsCorruption) {
  std::string stream = DataPacket(SampleBlock(100), kRevision1816, true, 300);
  std::string plain = DataPacket(SampleBlock(100), kRevision1816, false, 0);
  for (bool compressed : {true, false}) {
    const std::string& full = compressed ? stream : plain;
    for (size_t cut = 0; cut < full.size(); cut += 1 + cut / 16) {
      BufferWireReader source(std::string_view(full).substr(0, cut));
      PacketReader reader(source, kRevision1816, FrameLimits{}, "test");
      reader.StartQuery(compressed);
      ServerPacketData p;
      EXPECT_EQ(ErrorOf([&] { reader.Next(p); }).code(), ErrorCode::kCorruption) << cut;
    }
  }
}

}  // namespace
}  // namespace rowbridge::clickhouse
