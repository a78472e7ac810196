// A canonical, line-oriented text rendering of a parsed DDL statement: one header line, then one
// indented line per column, index or ALTER specification. Stable by design -- the parse corpus
// (tests/data/ddl) compares against it -- and readable in messages.
//   CREATE TABLE sakila.actor
//     column actor_id smallint(5) unsigned NOT NULL AUTO_INCREMENT
//     index PRIMARY primary (actor_id)
//     options charset=utf8mb4
#pragma once

#include <string>

#include "schema/ddl_statement.h"

namespace rowbridge::schema {

std::string DescribeStatement(const DdlStatement& statement);
std::string DescribeColumnSpec(const ColumnSpec& column);

}  // namespace rowbridge::schema
