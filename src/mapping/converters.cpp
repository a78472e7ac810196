// SelectConverter: routes a (source, target) pair to its converter family, and the parts shared
// by every family (text targets, out-of-range reporting).
#include "clickhouse/columns/string.h"
#include "mapping/converter.h"
#include "mapping/decimal_converters.h"
#include "mapping/float_converters.h"
#include "mapping/integer_converters.h"
#include "mapping/label_converters.h"
#include "mapping/string_converters.h"
#include "mapping/temporal_converters.h"
#include "mapping/text_sink.h"
#include "mapping/vector_converters.h"

namespace rowbridge::mapping {

using binlog::ColumnType;
using clickhouse::TypeCode;

void Converter::OutOfRange(RangeRule rule, const binlog::Cell& cell, std::string_view what,
                           std::string_view clamped_to) const {
  std::string value;
  try {
    AppendMysqlText(cell, zone != nullptr ? *zone : *TimeZone::Utc(), value);
  } catch (const Error&) {
    value = "<undecodable>";
  }
  ConversionCounters::Slot* slot = slots[static_cast<size_t>(rule)];
  if (slot == nullptr)
    Fail(ErrorCode::kInternal, "{}: no counter slot for rule {}", column, RangeRuleName(rule));
  ReportOutOfRange(policies[rule], *slot, rule, source_type, target_type, value, what, clamped_to,
                   policy_key);
}

void PutTextTooLong(const Converter& c, const binlog::Cell& cell, clickhouse::Column& column,
                    std::string_view text) {
  auto& fixed = static_cast<clickhouse::ColumnFixedString&>(column);
  c.OutOfRange(RangeRule::kStringTooLong, cell,
               fmt::format("{} bytes do not fit in {} bytes", text.size(), fixed.width()),
               fmt::format("the first {} bytes", fixed.width()));
  fixed.Append(text.substr(0, fixed.width()));
}

bool IsTextTarget(Converter& c) {
  switch (c.target.code) {
    case TypeCode::kString:
      c.text_sink = TextSink::kString;
      return true;
    case TypeCode::kFixedString:
      c.text_sink = TextSink::kFixedString;
      return true;
    case TypeCode::kLowCardinality: {
      const auto& inner = c.target.nested.at(0);
      const bool string =
          inner.code == TypeCode::kString ||
          (inner.code == TypeCode::kNullable && inner.nested.at(0).code == TypeCode::kString);
      if (string) c.text_sink = TextSink::kLowCardinality;
      return string;
    }
    default:
      c.text_sink = TextSink::kNone;
      return false;
  }
}

Converter SelectConverter(const binlog::ColumnDef& source, const clickhouse::TypeDesc& target,
                          const ColumnName& column, const ConverterSettings& settings,
                          std::string& why_not) {
  Converter c;
  c.source = source;
  c.target = target.code == TypeCode::kNullable ? target.nested.at(0) : target;
  c.target_type = target.name;
  c.source_type = MysqlTypeName(source);
  c.column = column.Qualified();
  c.zone_owner = settings.zone ? settings.zone : TimeZone::Utc();
  c.zone = c.zone_owner.get();
  c.policies = settings.policies;
  c.policy_key = settings.policy_key;
  c.counters = settings.counters ? settings.counters : std::make_shared<ConversionCounters>();
  for (size_t i = 0; i < kRangeRuleCount; ++i)
    c.slots[i] = &c.counters->SlotFor(column, static_cast<RangeRule>(i));
  IsTextTarget(c);

  bool ok = false;
  switch (source.type) {
    case ColumnType::kTiny:
    case ColumnType::kShort:
    case ColumnType::kInt24:
    case ColumnType::kLong:
    case ColumnType::kLongLong:
    case ColumnType::kYear:
    case ColumnType::kBit:
      ok = SelectIntegerConverter(c, IntegerSourceOf(source), why_not);
      break;
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      ok = SelectFloatConverter(c, why_not);
      break;
    case ColumnType::kNewDecimal:
      ok = SelectDecimalConverter(c, why_not);
      break;
    case ColumnType::kDate:
    case ColumnType::kNewDate:
    case ColumnType::kTime:
    case ColumnType::kTime2:
    case ColumnType::kDateTime:
    case ColumnType::kDateTime2:
    case ColumnType::kTimestamp:
    case ColumnType::kTimestamp2:
      ok = SelectTemporalConverter(c, why_not);
      break;
    case ColumnType::kEnum:
    case ColumnType::kSet: {
      const bool numeric_target =
          c.text_sink == TextSink::kNone && c.target.code != TypeCode::kEnum8 &&
          c.target.code != TypeCode::kEnum16 && c.target.code != TypeCode::kArray;
      ok = numeric_target ? SelectIntegerConverter(c, IntegerSourceOf(source), why_not)
                          : SelectLabelConverter(c, why_not);
      break;
    }
    case ColumnType::kVarchar:
    case ColumnType::kVarString:
    case ColumnType::kString:
    case ColumnType::kTinyBlob:
    case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
    case ColumnType::kBlob:
    case ColumnType::kJson:
    case ColumnType::kGeometry:
      ok = SelectStringConverter(c, why_not);
      break;
    case ColumnType::kVector:
      ok = SelectVectorConverter(c, why_not);
      break;
    default:
      why_not = fmt::format("MySQL type {} is not supported", binlog::ColumnTypeName(source.type));
      break;
  }
  if (!ok) {
    if (why_not.empty()) why_not = "no conversion";
    c.fn = nullptr;
  }
  return c;
}

}  // namespace rowbridge::mapping
