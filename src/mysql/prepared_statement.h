// Server-side prepared statements and their binary-protocol result sets. The binary protocol
// sends numbers as their stored bytes (IEEE doubles and floats, little-endian integers) and
// temporal values as small structs, so reading them costs neither side any text formatting or
// parsing, and FLOAT/DOUBLE values arrive exactly as stored.
//
//   PreparedStatement stmt = PreparedStatement::Prepare(conn, "SELECT a, b FROM t");
//   BinaryResultSet rs = stmt.Execute();
//   while (rs.Next()) { if (!rs.IsNull(1)) Use(rs.Field(0), rs.Field(1)); }
//
// Prepare sends COM_STMT_PREPARE and reads the whole answer (statement id, parameter and column
// definitions). Execute sends COM_STMT_EXECUTE without parameters and without a cursor; rows then
// stream one packet at a time (binary_row.h describes a row and what Field() returns). While a
// BinaryResultSet is open the connection can run nothing else; destroying it early reads and
// discards the rest. A PreparedStatement closes itself (COM_STMT_CLOSE, which has no answer) when
// destroyed: destroy its result set first. Statements with parameters are not supported.
//
// Errors are those of Connection: Error(kServer) for the server's ERR packets (the connection stays
// usable), Error(kProtocol) naming the server's host:port for malformed answers (the connection is
// then unusable). Not thread-safe; the Connection must outlive both objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/connection.h"
#include "mysql/messages.h"

namespace rowbridge::mysql {

class BinaryResultSet {
 public:
  BinaryResultSet(BinaryResultSet&& other) noexcept;
  BinaryResultSet& operator=(BinaryResultSet&&) = delete;
  BinaryResultSet(const BinaryResultSet&) = delete;
  ~BinaryResultSet();

  const std::vector<ColumnDefinition>& columns() const { return columns_; }
  size_t column_count() const { return columns_.size(); }

  // Advances to the next row; false once the result is exhausted. An ERR packet mid-result is
  // thrown as Error(kServer).
  bool Next();
  // The value's bytes (binary_row.h); valid until the next Next().
  std::string_view Field(size_t i) const { return fields_[i]; }
  // The current row's whole packet, as ParseBinaryRow takes it; valid until the next Next().
  std::string_view row() const { return row_; }
  bool IsNull(size_t i) const { return nulls_[i] != 0; }
  uint64_t rows_read() const { return rows_read_; }
  // For a statement without a result set: what the OK packet said.
  const ExecuteResult& execute_result() const { return execute_result_; }

 private:
  friend class PreparedStatement;
  explicit BinaryResultSet(Connection* connection) : connection_(connection) {}

  Connection* connection_;
  bool done_ = false;
  std::vector<ColumnDefinition> columns_;
  std::vector<std::string_view> fields_;
  std::vector<uint8_t> nulls_;
  std::string_view row_;
  uint64_t rows_read_ = 0;
  ExecuteResult execute_result_;
};

class PreparedStatement {
 public:
  // Throws Error(kServer) if the server refuses the statement (syntax, unknown column, ...).
  static PreparedStatement Prepare(Connection& connection, std::string_view sql);
  PreparedStatement(PreparedStatement&& other) noexcept;
  PreparedStatement& operator=(PreparedStatement&&) = delete;
  PreparedStatement(const PreparedStatement&) = delete;
  ~PreparedStatement();

  uint32_t id() const { return id_; }
  size_t param_count() const { return param_count_; }
  // The result columns as the prepare answer described them.
  const std::vector<ColumnDefinition>& columns() const { return columns_; }

  // Runs the statement. Throws Error(kUnsupported) if it has parameters.
  BinaryResultSet Execute();
  // Sends COM_STMT_CLOSE now (the destructor does it otherwise); the statement is unusable after.
  void Close();

 private:
  PreparedStatement(Connection* connection, uint32_t id) : connection_(connection), id_(id) {}

  Connection* connection_;
  uint32_t id_;
  bool open_ = true;
  size_t param_count_ = 0;
  std::vector<ColumnDefinition> columns_;
};

}  // namespace rowbridge::mysql
