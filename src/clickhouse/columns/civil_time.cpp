#include "clickhouse/columns/civil_time.h"

namespace rowbridge::clickhouse {
namespace {

void AppendDigits(int64_t v, int width, std::string& out) {
  char buf[20];
  int n = 0;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (v < 0) out.push_back('-');
  for (int i = n; i < width; ++i) out.push_back('0');
  while (n > 0) out.push_back(buf[--n]);
}

}  // namespace

void AppendDateText(int64_t days, std::string& out) {
  CivilDate d = CivilFromDays(days);
  AppendDigits(d.year, 4, out);
  out.push_back('-');
  AppendDigits(d.month, 2, out);
  out.push_back('-');
  AppendDigits(d.day, 2, out);
}

void AppendDateTimeText(int64_t seconds, std::string& out) {
  int64_t days = FloorDiv(seconds, 86400);
  int64_t second_of_day = seconds - days * 86400;
  AppendDateText(days, out);
  out.push_back(' ');
  AppendDigits(second_of_day / 3600, 2, out);
  out.push_back(':');
  AppendDigits(second_of_day / 60 % 60, 2, out);
  out.push_back(':');
  AppendDigits(second_of_day % 60, 2, out);
}

}  // namespace rowbridge::clickhouse
