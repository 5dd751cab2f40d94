/* SPDX-License-Identifier: MIT */
/* gpurent's C API (libgpurent_c, CMake target gpurent::c; docs/c.md): the library's meter,
 * matcher and fleet run for C, Go, Slurm plugins and anything else that calls C. Rich data
 * crosses as JSON text, the same bytes the gpurent tool prints; money stays decimal strings.
 *
 * Conventions, for every function that returns an int:
 *   - the status is GPURENT_OK (0) or one of the GPURENT_E* codes below, which are the gpurent
 *     tool's exit statuses where they mean the same (2: invalid input, 3: not found);
 *   - on success *out_json (where there is one) receives a string and *out_error NULL; on
 *     failure *out_json receives NULL and *out_error the error text, which names the file, the
 *     line and the field as the tool's messages do ("usage.csv:3: field 'quantity': ...");
 *     with GPURENT_ENOMEM there is no text (*out_error is NULL);
 *   - every string received is the caller's: free it with gpurent_free;
 *   - out_error may be NULL (no text wanted); every other pointer argument is required unless
 *     its description says NULL is allowed (a missing one is GPURENT_EINVAL);
 *   - no C++ exception leaves a function; nothing is printed.
 * A matcher handle may be used by one thread at a time; distinct handles are independent. */
#ifndef GPURENT_C_H
#define GPURENT_C_H

#include <stddef.h>

#if defined(_WIN32) && defined(GPURENT_C_BUILDING)
#define GPURENT_C_API __declspec(dllexport)
#elif defined(_WIN32)
#define GPURENT_C_API __declspec(dllimport)
#elif defined(__GNUC__)
#define GPURENT_C_API __attribute__((visibility("default")))
#else
#define GPURENT_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GPURENT_OK = 0,        /* done */
  GPURENT_EINTERNAL = 1, /* an unexpected failure inside the library (a bug: please report the text) */
  GPURENT_EINVAL = 2,    /* invalid input: a file, a JSON argument or a value (the text says which, where) */
  GPURENT_ENOTFOUND = 3, /* the thing asked for does not exist (a placed job to release) */
  GPURENT_ENOMEM = 5     /* out of memory; no error text */
};

/* The library's version, "MAJOR.MINOR.PATCH" (static: do not free). */
GPURENT_C_API const char* gpurent_version(void);

/* Frees a string this API returned; NULL is allowed. */
GPURENT_C_API void gpurent_free(char* text);

/* The invoice of the usage CSVs usage_paths[0..n) under the tariff JSON tariff_path for the
 * calendar month `period` ("YYYY-MM", in the tariff's time zone), as JSON: byte for byte what
 * `gpurent meter --tariff T --usage U... --period P --format json` prints. */
GPURENT_C_API int gpurent_meter_json(const char* tariff_path, const char* const* usage_paths, size_t n, const char* period, char** out_json,
                                     char** out_error);

/* A matcher: a cluster's nodes and the gang placer of one policy; jobs are placed, released and
 * explained one at a time. Opaque. */
typedef struct gpurent_matcher gpurent_matcher;

/* A matcher over the nodes CSV nodes_path (the fleet's nodes file: sn,cpu_milli,memory_mib,gpu,
 * model[,state][,segment][,labels]), with the topology JSON topology_path (NULL: none) and the
 * gang policy named `policy` (NULL: "gpurent"; also slurm-block, kueue-best-fit, best-fit).
 * *out receives the handle (NULL on failure); free it with gpurent_matcher_destroy. */
GPURENT_C_API int gpurent_matcher_create(const char* nodes_path, const char* topology_path, const char* policy, gpurent_matcher** out,
                                         char** out_error);

/* Frees the matcher; NULL is allowed. */
GPURENT_C_API void gpurent_matcher_destroy(gpurent_matcher* m);

/* Places one job, all members or none. request_json is one job as a JSON object whose members
 * are the jobs file's columns (docs/c.md): "name" and "num_gpu" required, "workers" 1 unless
 * given. *out_json: {"job", "placed": true, "placements": [{"node", "gpus"}...],
 * "preferred_met"} or, when it fits nowhere now, {"job", "placed": false, "why_not": {...}}
 * (both GPURENT_OK). A name that is placed already is GPURENT_EINVAL. */
GPURENT_C_API int gpurent_matcher_place(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error);

/* Releases the placed job named `job`: its capacity is free again. GPURENT_ENOTFOUND when no
 * job of that name is placed. */
GPURENT_C_API int gpurent_matcher_release(gpurent_matcher* m, const char* job, char** out_error);

/* Why the job request_json (as for place) would not fit now, without placing it: *out_json is
 * {"job", "fits", "why_not": {"fit", "candidates", "total", "rejected": {reason: count},
 * "nodes": {"nodes", "feasible", "rejected": {constraint: nodes}}, ...}}. */
GPURENT_C_API int gpurent_matcher_explain(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error);

/* A fleet run (docs/fleet.md): the nodes CSV, the topology JSON (NULL: none) and the jobs CSV
 * (each job with a duration), with options_json (NULL: the defaults) an object of "policy",
 * "victims", "notice", "checkpoint_write", "restart", "min_runtime" as the tool's options of
 * those names. *out_json: what `gpurent fleet run --format json` prints, except "elapsed_s",
 * which is the wall-clock time this run took. */
GPURENT_C_API int gpurent_fleet_run_json(const char* nodes_path, const char* topology_path, const char* jobs_path, const char* options_json,
                                         char** out_json, char** out_error);

#ifdef __cplusplus
}
#endif

#endif /* GPURENT_C_H */
