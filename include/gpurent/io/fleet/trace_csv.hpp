// SPDX-License-Identifier: MIT
#pragma once
// Readers for the Alibaba GPU trace v2023 ("openb") CSVs: the node list and the pod lists.
// Every row becomes one record or one error naming the file, the line and the field; no row
// is skipped (blank lines are not rows). Columns are found by header name, so column order
// and extra columns (qos, times) do not matter; `gpu_spec` may be absent (multigpu files), and
// qos and the times too unless the caller requires them (fleet run does).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/reference/replay.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// One node of the cluster (a row of openb_node_list_*.csv).
struct trace_node {
  std::string sn;
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  std::int32_t gpu = 0;
  std::string model;  // empty for a CPU-only node
  std::size_t line = 0;
  friend bool operator==(const trace_node&, const trace_node&) = default;
};

// One task (a row of openb_pod_list_*.csv). Only the fields the replay uses are kept.
struct trace_pod {
  std::string name;
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  std::int32_t num_gpu = 0;
  std::int32_t gpu_milli = 0;
  std::string gpu_spec;  // '|'-separated allowed models; empty = any
  std::string qos;       // LS, Guaranteed, Burstable, BE; empty when the column is absent
  // Seconds (fleet run's arrivals and durations); -1 when the column is absent or the cell
  // empty (a pod never scheduled has no scheduled_time).
  std::int64_t creation_time = -1, scheduled_time = -1, deletion_time = -1;
  std::size_t line = 0;
  [[nodiscard]] std::int64_t gpu_request_milli() const noexcept { return static_cast<std::int64_t>(num_gpu) * gpu_milli; }
  friend bool operator==(const trace_pod&, const trace_pod&) = default;
};

inline constexpr std::int32_t trace_max_gpus_per_node = 16;

namespace detail {

inline void split_csv_line(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(line.substr(start));
      return;
    }
    out.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

template <class Int>
[[nodiscard]] inline expected<Int> parse_trace_int(std::string_view text, std::string_view field, Int lo, Int hi) {
  Int v{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range && ptr == last) {
    return make_error(error_code::invalid_argument, std::string(field),
                      "\"" + std::string(text) + "\" is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  if (text.empty() || ec != std::errc{} || ptr != last) {
    return make_error(error_code::parse_error, std::string(field), "not an integer: \"" + std::string(text) + "\"");
  }
  if (v < lo || v > hi) {
    return make_error(error_code::invalid_argument, std::string(field),
                      std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v;
}

// The CSV grammar shared by both files: a header naming the columns, then rows with exactly
// as many comma-separated fields. Quoting is not part of the openb files and is rejected.
class trace_csv_reader {
 public:
  trace_csv_reader(std::istream& in, std::string_view file) : in_(in), file_(file) {}

  // The header, which must have the `required` columns and those `also` lists (a caller's
  // own); an error names the first missing column and lists them all.
  [[nodiscard]] expected<void> read_header(std::initializer_list<std::string_view> required, std::span<const std::string_view> also = {}) {
    std::string raw;
    while (std::getline(in_, raw)) {
      ++line_;
      trim_cr(raw);
      if (line_ == 1 && without_bom(raw).size() < raw.size()) raw.erase(0, utf8_bom.size());
      if (raw.empty()) continue;
      header_.clear();
      split_csv_line(raw, fields_);
      for (auto f : fields_) header_.emplace_back(f);
      std::vector<std::string_view> missing;
      for (auto r : required)
        if (column(r) < 0) missing.push_back(r);
      for (auto r : also)
        if (column(r) < 0) missing.push_back(r);
      if (missing.empty()) return {};
      std::string list;
      for (auto m : missing) list += (list.empty() ? "" : ", ") + std::string(m);
      return unexpected<error>(
          located(error_code::parse_error, missing.front(), missing.size() == 1 ? "missing column in header" : "missing columns in header: " + list));
    }
    return unexpected<error>(error{error_code::parse_error, {}, "empty file: no header", {}}.at(file_, line_));
  }

  [[nodiscard]] int column(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == name) return static_cast<int>(i);
    }
    return -1;
  }

  // Reads the next row; false at the end. A malformed row is an error located at its line.
  [[nodiscard]] expected<bool> next() {
    while (std::getline(in_, raw_)) {
      ++line_;
      trim_cr(raw_);
      if (raw_.empty()) continue;
      if (raw_.find('"') != std::string::npos) {
        return unexpected<error>(located(error_code::parse_error, {}, "quoted fields are not supported"));
      }
      split_csv_line(raw_, fields_);
      if (fields_.size() != header_.size()) {
        return unexpected<error>(io::field_count_error(header_, fields_.size()).at(file_, line_));
      }
      for (std::size_t k = 0; k < fields_.size(); ++k)
        if (!is_utf8(fields_[k])) return unexpected<error>(located(error_code::parse_error, header_[k], utf8_problem(fields_[k])));
      return true;
    }
    if (in_.bad()) return unexpected<error>(located(error_code::io_error, {}, "read failed"));
    return false;
  }

  [[nodiscard]] std::string_view field(int col) const noexcept { return col < 0 ? std::string_view{} : fields_[static_cast<std::size_t>(col)]; }
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  [[nodiscard]] std::string_view file() const noexcept { return file_; }

  template <class Int>
  [[nodiscard]] expected<Int> integer(std::string_view name, Int lo, Int hi) const {
    auto v = parse_trace_int<Int>(field(column(name)), name, lo, hi);
    if (!v) return unexpected<error>(v.error().at(file_, line_));
    return v;
  }
  [[nodiscard]] error located(error_code code, std::string_view f, std::string msg) const {
    return error{code, std::string(f), std::move(msg), {}}.at(file_, line_);
  }

 private:
  static void trim_cr(std::string& s) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
  }
  std::istream& in_;
  std::string file_;
  std::size_t line_ = 0;
  std::string raw_;
  std::vector<std::string> header_;
  std::vector<std::string_view> fields_;
};

inline constexpr std::int64_t trace_max_amount = std::int64_t{1} << 40;

// Every row of a trace CSV whose header has the `required` and `also` columns, as
// row(reader) makes it; the first row that is an error stops the reading.
template <class Row, class F>
[[nodiscard]] expected<std::vector<Row>> read_trace_rows(std::istream& in, std::string_view file, std::initializer_list<std::string_view> required,
                                                         std::span<const std::string_view> also, F&& row) {
  trace_csv_reader r(in, file);
  GPURENT_TRY(r.read_header(required, also));
  std::vector<Row> out;
  for (;;) {
    GPURENT_TRY(more, r.next());
    if (!*more) return out;
    GPURENT_TRY(x, row(r));
    out.push_back(std::move(*x));
  }
}

// The row's name in `column` (a node's sn, a pod's name): not empty, not seen before.
[[nodiscard]] inline expected<std::string> trace_row_name(const trace_csv_reader& r, std::string_view column, std::string_view what,
                                                          std::set<std::string, std::less<>>& seen) {
  std::string name(r.field(r.column(column)));
  if (name.empty()) return unexpected<error>(r.located(error_code::invalid_argument, column, "empty " + std::string(what) + " name"));
  if (!seen.insert(name).second)
    return unexpected<error>(r.located(error_code::duplicate, column, "duplicate " + std::string(what) + " \"" + name + "\""));
  return name;
}

// A task's GPU request must be one the matcher can place: CPU-only, a share of one GPU, or
// whole GPUs.
[[nodiscard]] inline expected<void> check_trace_gpus(const trace_csv_reader& r, const trace_pod& p) {
  const char* why = p.num_gpu == 0 && p.gpu_milli != 0     ? "a CPU-only task (num_gpu 0) must have gpu_milli 0"
                    : p.num_gpu > 0 && p.gpu_milli == 0    ? "a GPU task needs gpu_milli > 0"
                    : p.num_gpu > 1 && p.gpu_milli != 1000 ? "a multi-GPU task must ask for whole GPUs (1000)"
                                                           : nullptr;
  if (why != nullptr) return unexpected<error>(r.located(error_code::invalid_argument, "gpu_milli", why));
  return {};
}

// A node's GPU model: needed when the node has GPUs, and without a '|' (a task's gpu_spec
// separates models with it, so no task could ask for such a model).
[[nodiscard]] inline expected<void> check_node_model(std::string_view model, std::int64_t gpus) {
  if (gpus > 0 && model.empty()) return make_error(error_code::invalid_argument, "model", "a node with GPUs needs a model");
  if (model.find('|') != std::string_view::npos)
    return make_error(error_code::invalid_argument, "model", "\"" + std::string(model) + "\" has a '|', which separates models in a gpu_spec");
  return {};
}

// An optional time column: -1 when absent or empty.
[[nodiscard]] inline expected<void> read_trace_time(const trace_csv_reader& r, std::string_view name, std::int64_t& out) {
  out = -1;
  if (r.field(r.column(name)).empty()) return {};
  GPURENT_TRY(v, r.integer<std::int64_t>(name, 0, trace_max_amount));
  out = *v;
  return {};
}

}  // namespace detail

// A pod's placement request on inv (gpu_spec's models as inv names them); an error names
// gpu_spec when a model is not inv's.
[[nodiscard]] inline expected<placement_request> trace_pod_request(const trace_pod& p, const inventory& inv) {
  placement_request r;
  r.num_gpu = p.num_gpu;
  r.gpu_milli = milli_gpu(p.gpu_milli);
  r.cpu_milli = p.cpu_milli;
  r.memory_mib = p.memory_mib;
  GPURENT_TRY(mask, inv.models_mask(p.gpu_spec));
  r.allowed_models = *mask;
  return r;
}

// Reads a node list. `file` names the source in error messages.
[[nodiscard]] inline expected<std::vector<trace_node>> read_trace_nodes(std::istream& in, std::string_view file) {
  std::set<std::string, std::less<>> seen;
  auto row = [&](const detail::trace_csv_reader& r) -> expected<trace_node> {
    trace_node n;
    n.line = r.line();
    GPURENT_TRY(sn, detail::trace_row_name(r, "sn", "node", seen));
    n.sn = std::move(*sn);
    GPURENT_TRY(cpu, r.integer<std::int64_t>("cpu_milli", 0, detail::trace_max_amount));
    GPURENT_TRY(mem, r.integer<std::int64_t>("memory_mib", 0, detail::trace_max_amount));
    GPURENT_TRY(gpu, r.integer<std::int32_t>("gpu", 0, trace_max_gpus_per_node));
    n.cpu_milli = milli_cpu(*cpu);
    n.memory_mib = mebibytes(*mem);
    n.gpu = *gpu;
    n.model = std::string(r.field(r.column("model")));
    if (auto ok = detail::check_node_model(n.model, n.gpu); !ok) return unexpected<error>(r.located(ok.error().code, "model", ok.error().message));
    return n;
  };
  GPURENT_TRY(out, detail::read_trace_rows<trace_node>(in, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, {}, row));
  if (out->empty()) return unexpected<error>(error{error_code::invalid_argument, {}, "no nodes", {}}.at(file, 1));
  return std::move(*out);
}

// Reads a pod (task) list; a header without one of the columns `also` names (a command's
// own needs: fleet run's time columns) is an error at the header's line.
[[nodiscard]] inline expected<std::vector<trace_pod>> read_trace_pods(std::istream& in, std::string_view file,
                                                                      std::span<const std::string_view> also = {}) {
  std::set<std::string, std::less<>> seen;
  auto row = [&](const detail::trace_csv_reader& r) -> expected<trace_pod> {
    trace_pod p;
    p.line = r.line();
    GPURENT_TRY(name, detail::trace_row_name(r, "name", "pod", seen));
    p.name = std::move(*name);
    GPURENT_TRY(cpu, r.integer<std::int64_t>("cpu_milli", 0, detail::trace_max_amount));
    GPURENT_TRY(mem, r.integer<std::int64_t>("memory_mib", 0, detail::trace_max_amount));
    GPURENT_TRY(num, r.integer<std::int32_t>("num_gpu", 0, trace_max_gpus_per_node));
    GPURENT_TRY(milli, r.integer<std::int32_t>("gpu_milli", 0, 1000));
    p.cpu_milli = milli_cpu(*cpu);
    p.memory_mib = mebibytes(*mem);
    p.num_gpu = *num;
    p.gpu_milli = *milli;
    GPURENT_TRY(detail::check_trace_gpus(r, p));
    p.gpu_spec = std::string(r.field(r.column("gpu_spec")));  // an absent column reads as empty
    p.qos = std::string(r.field(r.column("qos")));
    GPURENT_TRY(detail::read_trace_time(r, "creation_time", p.creation_time));
    GPURENT_TRY(detail::read_trace_time(r, "scheduled_time", p.scheduled_time));
    GPURENT_TRY(detail::read_trace_time(r, "deletion_time", p.deletion_time));
    return p;
  };
  return detail::read_trace_rows<trace_pod>(in, file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}, also, row);
}

// File versions: the whole file through io::read_file, then the rows; errors name the path.
[[nodiscard]] inline expected<std::vector<trace_node>> read_trace_nodes_file(const std::string& path) {
  GPURENT_TRY(text, io::read_file(path));
  std::istringstream in(std::move(*text));
  return read_trace_nodes(in, path);
}
[[nodiscard]] inline expected<std::vector<trace_pod>> read_trace_pods_file(const std::string& path, std::span<const std::string_view> also = {}) {
  GPURENT_TRY(text, io::read_file(path));
  std::istringstream in(std::move(*text));
  return read_trace_pods(in, path, also);
}

// The replay's cluster and task list from a trace. A gpu_spec naming a model no node has is
// an error at the pod's line (field gpu_spec), not a task that silently fits nowhere.
[[nodiscard]] inline expected<replay_workload> make_replay_workload(const std::vector<trace_node>& nodes, std::string_view nodes_file,
                                                                    const std::vector<trace_pod>& pods, std::string_view pods_file) {
  replay_workload w;
  for (const trace_node& n : nodes) {
    node_spec s;
    s.name = n.sn;
    s.cpu_milli = n.cpu_milli;
    s.memory_mib = n.memory_mib;
    s.gpu_count = static_cast<std::uint8_t>(n.gpu);
    if (n.gpu > 0) {
      if (!w.cluster.find_model(n.model) && w.cluster.model_count() >= max_models) {
        return unexpected<error>(error{error_code::invalid_argument, "model", "more than 64 GPU models", {}}.at(nodes_file, n.line));
      }
      s.model = w.cluster.add_model(gpu_model_info{n.model, {}, {}});
    }
    w.cluster.add_node(std::move(s));
  }
  w.tasks.reserve(pods.size());
  w.task_names.reserve(pods.size());
  for (const trace_pod& p : pods) {
    auto r = trace_pod_request(p, w.cluster);
    if (!r) return unexpected<error>(r.error().at(pods_file, p.line));
    w.tasks.push_back(*r);
    w.task_names.push_back(p.name);
  }
  w.shapes = shape_distribution::of(w.tasks);
  return w;
}

}  // namespace gpurent
