/* SPDX-License-Identifier: MIT */
/* The C API from C (include/gpurent_c.h):
 *   c_api.test SOURCE_DIR SCRATCH_DIR [GPURENT_TOOL]
 * meters the golden inputs and compares the invoice byte for byte with the tool's recorded
 * output; meters bad input (status 2, the file, line and field in the text); places, explains
 * and releases jobs with a matcher; runs a fleet and, given the tool, compares its JSON with
 * `gpurent fleet run --format json` (all but elapsed_s); checks missing arguments. Every string
 * is freed, so AddressSanitizer's leak check sees a clean run. Prints one line per failure. */
#define _POSIX_C_SOURCE 200809L /* popen, mkdir */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpurent_c.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static const char* source_dir;
static const char* scratch_dir;

/* SOURCE_DIR/rel or SCRATCH_DIR/rel, in a static buffer per slot. */
static const char* path_in(const char* dir, const char* rel, int slot) {
  static char buffers[4][4096];
  snprintf(buffers[slot], sizeof buffers[slot], "%s/%s", dir, rel);
  return buffers[slot];
}

/* A whole file (or a command's stdout) as a malloc'd string; NULL when it cannot be read. */
static char* read_stream(FILE* f) {
  size_t size = 0, cap = 4096;
  char* text = malloc(cap);
  size_t got;
  if (text == NULL) return NULL;
  while ((got = fread(text + size, 1, cap - size - 1, f)) > 0) {
    size += got;
    if (cap - size < 2) {
      char* more = realloc(text, cap *= 2);
      if (more == NULL) {
        free(text);
        return NULL;
      }
      text = more;
    }
  }
  text[size] = '\0';
  return text;
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text;
  if (f == NULL) return NULL;
  text = read_stream(f);
  fclose(f);
  return text;
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

/* The text without its lines that contain `skip` (in place). */
static void drop_lines(char* text, const char* skip) {
  char* out = text;
  const char* line = text;
  while (*line != '\0') {
    const char* end = strchr(line, '\n');
    size_t n = end == NULL ? strlen(line) : (size_t)(end - line) + 1;
    char* hit = strstr(line, skip);
    if (hit == NULL || hit >= line + n) {
      memmove(out, line, n);
      out += n;
    }
    line += n;
  }
  *out = '\0';
}

static void test_version(void) {
  const char* v = gpurent_version();
  CHECK(v != NULL && strlen(v) >= 5 && strchr(v, '.') != NULL);
}

/* The golden example: the invoice JSON is what `gpurent meter --format json` printed. */
static void test_meter_golden(void) {
  const char* usage[] = {path_in(source_dir, "tests/golden/expected/example.usage.csv", 1)};
  char* json = NULL;
  char* error = NULL;
  char* expected = read_file(path_in(source_dir, "tests/golden/expected/example.meter.json", 2));
  int status = gpurent_meter_json(path_in(source_dir, "tests/golden/expected/example.tariff.json", 0), usage, 1, "2026-11", &json, &error);
  CHECK(status == GPURENT_OK);
  CHECK(error == NULL);
  CHECK(expected != NULL && json != NULL && strcmp(json, expected) == 0);
  gpurent_free(json);
  gpurent_free(error);
  free(expected);
}

/* Bad input: status 2, as the tool's exit status, and the tool's message (file, line, field). */
static void test_meter_errors(void) {
  const char* usage[] = {path_in(source_dir, "tests/golden/inputs/bad/usage-quantity.csv", 1)};
  const char* tariff = path_in(source_dir, "tests/golden/inputs/bad/tariff-ok.json", 0);
  char* json = (char*)1;
  char* error = NULL;
  int status = gpurent_meter_json(tariff, usage, 1, "2026-11", &json, &error);
  CHECK(status == GPURENT_EINVAL);
  CHECK(json == NULL);
  CHECK(error != NULL && strstr(error, "usage-quantity.csv:3: field 'quantity': more than one '.' in \"1.5.0\"") != NULL);
  gpurent_free(error);

  status = gpurent_meter_json(tariff, usage, 1, "2026-1", &json, &error); /* the period is checked before any usage */
  CHECK(status == GPURENT_EINVAL && json == NULL && error != NULL && strstr(error, "field 'period'") != NULL);
  gpurent_free(error);

  status = gpurent_meter_json(NULL, usage, 1, "2026-11", &json, &error);
  CHECK(status == GPURENT_EINVAL && error != NULL && strstr(error, "tariff_path") != NULL);
  gpurent_free(error);

  status = gpurent_meter_json(tariff, usage, 1, "2026-11", &json, NULL); /* no text wanted */
  CHECK(status == GPURENT_EINVAL && json == NULL);
}

static const char* nodes_csv =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "node-a,64000,262144,8,A100-SXM4-80GB\n"
    "node-b,64000,262144,4,A100-SXM4-80GB\n";

/* Place, explain, release: two jobs fill node-a's 8 GPUs and node-b's 4; a third does not fit
 * until one leaves. */
static void test_matcher(void) {
  gpurent_matcher* m = NULL;
  char* json = NULL;
  char* error = NULL;
  const char* nodes = path_in(scratch_dir, "nodes.csv", 0);
  write_file(nodes, nodes_csv);
  CHECK(gpurent_matcher_create(nodes, NULL, "best-fit", &m, &error) == GPURENT_OK && m != NULL && error == NULL);
  if (m == NULL) return;

  CHECK(gpurent_matcher_place(m, "{\"name\": \"eight\", \"num_gpu\": 8}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"placed\": true") != NULL && strstr(json, "\"node\": \"node-a\"") != NULL);
  gpurent_free(json);
  CHECK(gpurent_matcher_place(m, "{\"name\": \"four\", \"num_gpu\": 4, \"cpu_milli\": 1000}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"node\": \"node-b\"") != NULL);
  gpurent_free(json);

  CHECK(gpurent_matcher_place(m, "{\"name\": \"one\", \"num_gpu\": 1}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"placed\": false") != NULL && strstr(json, "\"why_not\"") != NULL);
  gpurent_free(json);
  CHECK(gpurent_matcher_explain(m, "{\"name\": \"one\", \"num_gpu\": 1}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"fits\": false") != NULL && strstr(json, "\"rejected\"") != NULL);
  gpurent_free(json);

  CHECK(gpurent_matcher_release(m, "four", &error) == GPURENT_OK && error == NULL);
  CHECK(gpurent_matcher_release(m, "four", &error) == GPURENT_ENOTFOUND && error != NULL && strstr(error, "field 'job'") != NULL);
  gpurent_free(error);
  CHECK(gpurent_matcher_explain(m, "{\"name\": \"one\", \"num_gpu\": 1}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"fits\": true") != NULL);
  gpurent_free(json);
  CHECK(gpurent_matcher_place(m, "{\"name\": \"one\", \"num_gpu\": 1}", &json, &error) == GPURENT_OK);
  CHECK(json != NULL && strstr(json, "\"node\": \"node-b\"") != NULL);
  gpurent_free(json);

  /* Bad requests: a misspelt member, a bad value, a name already placed, not JSON. */
  CHECK(gpurent_matcher_place(m, "{\"name\": \"x\", \"num_gpus\": 1}", &json, &error) == GPURENT_EINVAL && json == NULL);
  CHECK(error != NULL && strstr(error, "field 'num_gpus': unknown field") != NULL);
  gpurent_free(error);
  CHECK(gpurent_matcher_place(m, "{\"name\": \"x\",\n \"num_gpu\": -1}", &json, &error) == GPURENT_EINVAL);
  CHECK(error != NULL && strstr(error, "request_json:2: field 'num_gpu'") != NULL);
  gpurent_free(error);
  CHECK(gpurent_matcher_place(m, "{\"name\": \"one\", \"num_gpu\": 1}", &json, &error) == GPURENT_EINVAL);
  CHECK(error != NULL && strstr(error, "placed already") != NULL);
  gpurent_free(error);
  CHECK(gpurent_matcher_place(m, "{\"name\": ", &json, &error) == GPURENT_EINVAL && error != NULL && strstr(error, "not valid JSON") != NULL);
  gpurent_free(error);
  /* A name with a NUL: placed, no C string could release it (an outside probe's finding). */
  CHECK(gpurent_matcher_place(m, "{\"name\": \"n\\u0000ul\", \"num_gpu\": 1}", &json, &error) == GPURENT_EINVAL && json == NULL);
  CHECK(error != NULL && strstr(error, "field 'name': a NUL character") != NULL);
  gpurent_free(error);
  gpurent_matcher_destroy(m);

  /* A bad nodes file and an unknown policy. */
  m = (gpurent_matcher*)1;
  CHECK(gpurent_matcher_create(path_in(scratch_dir, "missing.csv", 1), NULL, NULL, &m, &error) == GPURENT_EINVAL && m == NULL);
  CHECK(error != NULL && strstr(error, "missing.csv") != NULL);
  gpurent_free(error);
  CHECK(gpurent_matcher_create(nodes, NULL, "no-such-policy", &m, &error) == GPURENT_EINVAL && m == NULL);
  CHECK(error != NULL && strstr(error, "field 'policy'") != NULL);
  gpurent_free(error);
  gpurent_matcher_destroy(NULL);
}

static const char* jobs_csv =
    "name,workers,num_gpu,priority,preemptible,arrival,duration\n"
    "train,1,8,10,false,0,3600\n"
    "spot-1,1,4,0,true,0,7200\n"
    "spot-2,1,4,0,true,60,7200\n"
    "urgent,1,8,20,false,120,600\n";

/* A fleet run; with the tool, its JSON against `gpurent fleet run --format json`. */
static void test_fleet_run(const char* tool) {
  char* json = NULL;
  char* error = NULL;
  const char* nodes = path_in(scratch_dir, "nodes.csv", 0);
  const char* jobs = path_in(scratch_dir, "jobs.csv", 1);
  const char* options = "{\"victims\": \"kube\", \"notice\": \"45s\"}";
  write_file(jobs, jobs_csv);
  CHECK(gpurent_fleet_run_json(nodes, NULL, jobs, options, &json, &error) == GPURENT_OK && error == NULL);
  CHECK(json != NULL && strstr(json, "\"victims\": \"kube\"") != NULL);
  if (json != NULL && tool != NULL) {
    char command[8192];
    FILE* p;
    char* printed;
    snprintf(command, sizeof command, "'%s' fleet run --nodes '%s' --jobs '%s' --victims kube --notice 45s --format json", tool, nodes, jobs);
    p = popen(command, "r");
    CHECK(p != NULL);
    if (p != NULL) {
      printed = read_stream(p);
      CHECK(pclose(p) == 0);
      CHECK(printed != NULL);
      if (printed != NULL) {
        drop_lines(printed, "\"elapsed_s\"");
        drop_lines(json, "\"elapsed_s\"");
        CHECK(strcmp(printed, json) == 0);
      }
      free(printed);
    }
  }
  gpurent_free(json);

  CHECK(gpurent_fleet_run_json(nodes, NULL, jobs, "{\"notice\": \"soon\"}", &json, &error) == GPURENT_EINVAL && json == NULL);
  CHECK(error != NULL && strstr(error, "field 'notice'") != NULL);
  gpurent_free(error);
  CHECK(gpurent_fleet_run_json(nodes, NULL, jobs, "{\"policy\": \"nope\"}", &json, &error) == GPURENT_EINVAL);
  CHECK(error != NULL && strstr(error, "field 'policy'") != NULL);
  gpurent_free(error);
  CHECK(gpurent_fleet_run_json(nodes, NULL, NULL, NULL, &json, &error) == GPURENT_EINVAL && error != NULL);
  gpurent_free(error);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s SOURCE_DIR SCRATCH_DIR [GPURENT_TOOL]\n", argv[0]);
    return 2;
  }
  source_dir = argv[1];
  scratch_dir = argv[2];
  mkdir(scratch_dir, 0777);
  test_version();
  test_meter_golden();
  test_meter_errors();
  test_matcher();
  test_fleet_run(argc > 3 ? argv[3] : NULL);
  if (failures > 0) {
    fprintf(stderr, "c_api: %d checks failed\n", failures);
    return 1;
  }
  printf("c_api: every check passed (gpurent %s)\n", gpurent_version());
  return 0;
}
