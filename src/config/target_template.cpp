#include "config/target_template.h"

#include "common/error.h"

namespace rowbridge::config {
namespace {

struct Expansion {
  std::string parts[2];
  bool nonempty[2] = {false, false};
  int dots = 0;
  bool placeholders = false;
};

// Appends the value of the placeholder that opens at text[open] ({db} or {table}) to `part`;
// returns where the text goes on after it.
size_t AppendPlaceholder(std::string_view text, size_t open, std::string_view db,
                         std::string_view table, std::string& part) {
  const size_t i = open;
  size_t close = text.find('}', i);
  if (close == std::string_view::npos) {
    Fail(ErrorCode::kInvalidArgument, "target \"{}\" has an unclosed {{ at character {}", text,
         i + 1);
  }
  std::string_view name = text.substr(i + 1, close - i - 1);
  if (name == "db") {
    part.append(db);
  } else if (name == "table") {
    part.append(table);
  } else {
    Fail(ErrorCode::kInvalidArgument,
         "target \"{}\" has an unknown placeholder {{{}}} (the placeholders are {{db}} and "
         "{{table}})",
         text, name);
  }
  return close + 1;
}

Expansion Expand(std::string_view text, std::string_view db, std::string_view table) {
  Expansion out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    std::string& part = out.parts[out.dots];
    if (c == '`') {
      size_t start = i++;
      bool closed = false;
      while (i < text.size()) {
        if (text[i] == '`') {
          if (i + 1 < text.size() && text[i + 1] == '`') {
            part.push_back('`');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        part.push_back(text[i++]);
      }
      if (!closed) {
        Fail(ErrorCode::kInvalidArgument,
             "target \"{}\" has an unterminated backtick at character {}", text, start + 1);
      }
      out.nonempty[out.dots] = out.nonempty[out.dots] || i - start > 2;
      continue;
    }
    if (c == '.') {
      if (out.dots == 1) {
        Fail(ErrorCode::kInvalidArgument,
             "target \"{}\" has more than one dot; quote names that contain dots with backticks",
             text);
      }
      out.dots = 1;
      ++i;
      continue;
    }
    if (c == '{') {
      i = AppendPlaceholder(text, i, db, table, part);
      out.placeholders = true;
      out.nonempty[out.dots] = true;
      continue;
    }
    if (c == '}') {
      Fail(ErrorCode::kInvalidArgument, "target \"{}\" has a }} without {{ at character {}", text,
           i + 1);
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || static_cast<unsigned char>(c) < 0x20) {
      Fail(ErrorCode::kInvalidArgument,
           "target \"{}\" contains unquoted whitespace or a control character; quote such names "
           "with backticks",
           text);
    }
    part.push_back(c);
    out.nonempty[out.dots] = true;
    ++i;
  }
  for (int p = 0; p <= out.dots; ++p) {
    if (!out.nonempty[p]) {
      Fail(ErrorCode::kInvalidArgument, "target \"{}\" has an empty {} name", text,
           p == 0 && out.dots == 1 ? "database" : "table");
    }
  }
  return out;
}

}  // namespace

void ValidateTargetTemplate(std::string_view text) {
  Expand(text, "db", "table");
}

bool TargetHasPlaceholders(std::string_view text) {
  return Expand(text, "db", "table").placeholders;
}

QualifiedName ExpandTarget(std::string_view text, std::string_view default_database,
                           std::string_view source_db, std::string_view source_table) {
  Expansion e = Expand(text, source_db, source_table);
  if (e.dots == 0) return {std::string(default_database), std::move(e.parts[0])};
  return {std::move(e.parts[0]), std::move(e.parts[1])};
}

}  // namespace rowbridge::config
