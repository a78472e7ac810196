// Metrics: counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format 0.0.4 for /metrics.
//
// Hot paths never lock or allocate: look the metric up ONCE (Family::WithLabels takes a lock and
// may allocate) and keep the returned reference, which stays valid as long as the registry; then
// Increment/Set/Observe are relaxed atomic operations. Rendering may run concurrently with
// updates; each value is read atomically (a histogram's buckets are read one by one, and _count is
// derived from them so that it always equals the +Inf bucket).
//
// Names must follow Prometheus rules ([a-zA-Z_:][a-zA-Z0-9_:]* for metrics, [a-zA-Z_][a-zA-Z0-9_]*
// not starting with "__" for labels, no "le" label on histograms); breaking them, or registering a
// name twice with a different definition, throws Error(kInvalidArgument). Registering the same
// definition again returns the existing family, so modules may register what they use.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace rowbridge::server {

// Label values, in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class Counter {
 public:
  void Increment(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `upper_bounds`: strictly increasing, finite; the +Inf bucket is implicit. Must outlive this.
  explicit Histogram(const std::vector<double>& upper_bounds);

  // NaN is ignored (it would poison the sum forever).
  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;  // == cumulative.back()
  };
  Snapshot Read() const;

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // non-cumulative; bounds_.size() + 1
  std::atomic<double> sum_{0};
};

// Bucket bounds start, start*factor, ... (`count` of them).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

enum class MetricType { kCounter, kGauge, kHistogram };

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, MetricType type,
             std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends the HELP and TYPE lines and every sample.
  void Render(std::string& out) const;

 protected:
  void CheckLabelCount(const LabelValues& values) const;
  virtual void RenderSamples(std::string& out) const = 0;

  // Label pairs of one child, without braces: name="value",... (escaped).
  std::string LabelPairs(const LabelValues& values) const;

  mutable std::mutex mutex_;  // guards the children map, not the values

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
};

template <typename Metric>
class Family : public FamilyBase {
 public:
  using FamilyBase::FamilyBase;

  // The metric for these label values (as many as label names), created on first use. Locks;
  // call once and keep the reference.
  Metric& WithLabels(const LabelValues& values) {
    CheckLabelCount(values);
    std::lock_guard lock(mutex_);
    auto it = children_.find(values);
    if (it == children_.end()) it = children_.emplace(values, Make()).first;
    return *it->second;
  }
  // The metric of a family without labels.
  Metric& Get() { return WithLabels({}); }

 protected:
  virtual std::unique_ptr<Metric> Make() {
    if constexpr (std::is_default_constructible_v<Metric>) {
      return std::make_unique<Metric>();
    } else {
      return nullptr;  // HistogramFamily overrides this
    }
  }
  void RenderSamples(std::string& out) const override;

  std::map<LabelValues, std::unique_ptr<Metric>> children_;
};

template <>
void Family<Counter>::RenderSamples(std::string& out) const;
template <>
void Family<Gauge>::RenderSamples(std::string& out) const;
template <>
void Family<Histogram>::RenderSamples(std::string& out) const;

class HistogramFamily : public Family<Histogram> {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> upper_bounds);
  const std::vector<double>& upper_bounds() const { return bounds_; }

 protected:
  std::unique_ptr<Histogram> Make() override { return std::make_unique<Histogram>(bounds_); }

 private:
  std::vector<double> bounds_;
};

class MetricsRegistry {
 public:
  Family<Counter>& AddCounter(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names = {});
  Family<Gauge>& AddGauge(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names = {});
  HistogramFamily& AddHistogram(const std::string& name, const std::string& help,
                                std::vector<double> upper_bounds,
                                std::vector<std::string> label_names = {});

  // The gauge family registered as `name`; nullptr when there is none (or it is no gauge).
  Family<Gauge>* FindGauge(const std::string& name);

  // Prometheus text format 0.0.4, families sorted by name, children by label values.
  std::string RenderPrometheus() const;

 private:
  FamilyBase* Existing(const std::string& name, MetricType type,
                       const std::vector<std::string>& label_names, const std::string& help);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
};

// The Content-Type of RenderPrometheus() output.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace rowbridge::server
