#include "server/metrics.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace rowbridge::server {
namespace {

bool IsMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsLabelName(const std::string& name) {
  if (name.empty() || name.rfind("__", 0) == 0) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Go's strconv.FormatFloat(v, 'g', -1, 64) style, as the Prometheus clients write it.
std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

void AppendEscapedHelp(std::string& out, const std::string& help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

void AppendEscapedLabelValue(std::string& out, const std::string& value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// "{pairs}" or "" when there are none.
std::string Braced(const std::string& pairs) {
  return pairs.empty() ? "" : "{" + pairs + "}";
}

}  // namespace

Histogram::Histogram(const std::vector<double>& upper_bounds)
    : bounds_(upper_bounds), buckets_(new std::atomic<uint64_t>[upper_bounds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  // Bucket i counts values in (bound[i-1], bound[i]]; "le" is inclusive.
  size_t bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot snapshot;
  snapshot.cumulative.resize(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    snapshot.cumulative[i] = running;
  }
  snapshot.count = running;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) {
    Fail(ErrorCode::kInvalidArgument, "exponential buckets need start > 0, factor > 1, count >= 1");
  }
  std::vector<double> bounds;
  double bound = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(bound);
    bound *= factor;
  }
  return bounds;
}

FamilyBase::FamilyBase(std::string name, std::string help, MetricType type,
                       std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {
  if (!IsMetricName(name_)) Fail(ErrorCode::kInvalidArgument, "invalid metric name \"{}\"", name_);
  for (size_t i = 0; i < label_names_.size(); ++i) {
    const std::string& label = label_names_[i];
    if (!IsLabelName(label) || (type_ == MetricType::kHistogram && label == "le")) {
      Fail(ErrorCode::kInvalidArgument, "metric {}: invalid label name \"{}\"", name_, label);
    }
    if (std::find(label_names_.begin(), label_names_.begin() + i, label) !=
        label_names_.begin() + i) {
      Fail(ErrorCode::kInvalidArgument, "metric {}: label \"{}\" given twice", name_, label);
    }
  }
}

void FamilyBase::CheckLabelCount(const LabelValues& values) const {
  if (values.size() != label_names_.size()) {
    Fail(ErrorCode::kInvalidArgument, "metric {} has {} labels, got {} values", name_,
         label_names_.size(), values.size());
  }
}

std::string FamilyBase::LabelPairs(const LabelValues& values) const {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += label_names_[i];
    out += "=\"";
    AppendEscapedLabelValue(out, values[i]);
    out.push_back('"');
  }
  return out;
}

void FamilyBase::Render(std::string& out) const {
  out += "# HELP ";
  out += name_;
  out.push_back(' ');
  AppendEscapedHelp(out, help_);
  out += "\n# TYPE ";
  out += name_;
  out.push_back(' ');
  out += TypeName(type_);
  out.push_back('\n');
  RenderSamples(out);
}

template <>
void Family<Counter>::RenderSamples(std::string& out) const {
  std::lock_guard lock(mutex_);
  for (const auto& [labels, counter] : children_) {
    out += fmt::format("{}{} {}\n", name(), Braced(LabelPairs(labels)), counter->Value());
  }
}

template <>
void Family<Gauge>::RenderSamples(std::string& out) const {
  std::lock_guard lock(mutex_);
  for (const auto& [labels, gauge] : children_) {
    out +=
        fmt::format("{}{} {}\n", name(), Braced(LabelPairs(labels)), FormatValue(gauge->Value()));
  }
}

template <>
void Family<Histogram>::RenderSamples(std::string& out) const {
  const auto& bounds = static_cast<const HistogramFamily*>(this)->upper_bounds();
  std::lock_guard lock(mutex_);
  for (const auto& [labels, histogram] : children_) {
    Histogram::Snapshot snapshot = histogram->Read();
    std::string pairs = LabelPairs(labels);
    std::string prefix = pairs.empty() ? "" : pairs + ",";
    for (size_t i = 0; i <= bounds.size(); ++i) {
      out +=
          fmt::format("{}_bucket{{{}le=\"{}\"}} {}\n", name(), prefix,
                      i < bounds.size() ? FormatValue(bounds[i]) : "+Inf", snapshot.cumulative[i]);
    }
    out += fmt::format("{}_sum{} {}\n", name(), Braced(pairs), FormatValue(snapshot.sum));
    out += fmt::format("{}_count{} {}\n", name(), Braced(pairs), snapshot.count);
  }
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> label_names,
                                 std::vector<double> upper_bounds)
    : Family<Histogram>(std::move(name), std::move(help), MetricType::kHistogram,
                        std::move(label_names)),
      bounds_(std::move(upper_bounds)) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && !(bounds_[i] > bounds_[i - 1]))) {
      Fail(ErrorCode::kInvalidArgument,
           "histogram {}: bucket bounds must be finite and strictly increasing", this->name());
    }
  }
}

FamilyBase* MetricsRegistry::Existing(const std::string& name, MetricType type,
                                      const std::vector<std::string>& label_names,
                                      const std::string& help) {
  auto it = families_.find(name);
  if (it == families_.end()) return nullptr;
  FamilyBase* family = it->second.get();
  if (family->type() != type || family->label_names() != label_names || family->help() != help) {
    Fail(ErrorCode::kInvalidArgument,
         "metric {} is already registered with a different type, labels or help", name);
  }
  return family;
}

Family<Counter>& MetricsRegistry::AddCounter(const std::string& name, const std::string& help,
                                             std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  if (FamilyBase* existing = Existing(name, MetricType::kCounter, label_names, help)) {
    return *static_cast<Family<Counter>*>(existing);
  }
  auto family =
      std::make_unique<Family<Counter>>(name, help, MetricType::kCounter, std::move(label_names));
  Family<Counter>& ref = *family;
  families_.emplace(name, std::move(family));
  return ref;
}

Family<Gauge>& MetricsRegistry::AddGauge(const std::string& name, const std::string& help,
                                         std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  if (FamilyBase* existing = Existing(name, MetricType::kGauge, label_names, help)) {
    return *static_cast<Family<Gauge>*>(existing);
  }
  auto family =
      std::make_unique<Family<Gauge>>(name, help, MetricType::kGauge, std::move(label_names));
  Family<Gauge>& ref = *family;
  families_.emplace(name, std::move(family));
  return ref;
}

HistogramFamily& MetricsRegistry::AddHistogram(const std::string& name, const std::string& help,
                                               std::vector<double> upper_bounds,
                                               std::vector<std::string> label_names) {
  std::lock_guard lock(mutex_);
  if (FamilyBase* existing = Existing(name, MetricType::kHistogram, label_names, help)) {
    auto* histogram = static_cast<HistogramFamily*>(existing);
    if (histogram->upper_bounds() != upper_bounds) {
      Fail(ErrorCode::kInvalidArgument, "histogram {} is already registered with different buckets",
           name);
    }
    return *histogram;
  }
  auto family = std::make_unique<HistogramFamily>(name, help, std::move(label_names),
                                                  std::move(upper_bounds));
  HistogramFamily& ref = *family;
  families_.emplace(name, std::move(family));
  return ref;
}

Family<Gauge>* MetricsRegistry::FindGauge(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = families_.find(name);
  if (it == families_.end() || it->second->type() != MetricType::kGauge) return nullptr;
  return static_cast<Family<Gauge>*>(it->second.get());
}

std::string MetricsRegistry::RenderPrometheus() const {
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) family->Render(out);
  return out;
}

}  // namespace rowbridge::server
