// SPDX-License-Identifier: MIT
// The C API's matcher: a cluster read from its nodes file (and topology), a gang placer of the
// named policy, and the jobs placed so far by name. Requests are JSON jobs
// (io/fleet/job_json.hpp); answers are JSON written with the audit log's writers
// (io/audit/audit_record.hpp), so a placement and an explanation read the same everywhere.
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/gang_matcher_json.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "api.hpp"

// The handle: the library's matcher by job name.
struct gpurent_matcher {
  std::unique_ptr<gpurent::io::gang_matcher_json> m;
};

namespace gpurent::c_api {
namespace {

expected<std::unique_ptr<io::gang_matcher_json>> open_matcher(const char* nodes, const char* topology, std::string_view policy) {
  GPURENT_TRY(c, io::read_fleet_cluster_file(nodes));
  if (topology != nullptr) GPURENT_TRY(io::read_topology_file(topology, *c));
  return io::gang_matcher_json::make(std::move(*c), policy);
}

}  // namespace
}  // namespace gpurent::c_api

extern "C" {

GPURENT_C_API int gpurent_matcher_create(const char* nodes_path, const char* topology_path, const char* policy, gpurent_matcher** out,
                                         char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out == nullptr) return missing("out", out_error);
    *out = nullptr;
    if (nodes_path == nullptr) return missing("nodes_path", out_error);
    auto opened = open_matcher(nodes_path, topology_path, policy == nullptr ? "gpurent" : policy);
    if (!opened) return fail(opened.error(), out_error);
    *out = new gpurent_matcher{std::move(*opened)};
    return GPURENT_OK;
  });
}

GPURENT_C_API void gpurent_matcher_destroy(gpurent_matcher* m) { delete m; }

GPURENT_C_API int gpurent_matcher_place(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (m == nullptr) return missing("m", out_error);
    if (request_json == nullptr) return missing("request_json", out_error);
    auto text = m->m->place(request_json, "request_json");
    return text ? give(*text, out_json, out_error) : fail(text.error(), out_error);
  });
}

GPURENT_C_API int gpurent_matcher_release(gpurent_matcher* m, const char* job, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (m == nullptr) return missing("m", out_error);
    if (job == nullptr) return missing("job", out_error);
    if (auto released = m->m->release(job); !released) return fail(released.error(), out_error);
    return GPURENT_OK;
  });
}

GPURENT_C_API int gpurent_matcher_explain(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (m == nullptr) return missing("m", out_error);
    if (request_json == nullptr) return missing("request_json", out_error);
    auto text = m->m->explain(request_json, "request_json");
    return text ? give(*text, out_json, out_error) : fail(text.error(), out_error);
  });
}
}
