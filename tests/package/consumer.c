/* SPDX-License-Identifier: MIT */
/* A C program that only sees the installed C API (tests/package/c_consumer): it meters the
 * golden example (the invoice byte for byte as the tool printed it), reads a bad usage file
 * (status 2, the file, line and field in the text) and places a job with a matcher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpurent_c.h>

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text = NULL;
  long size;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) != NULL) {
    text[fread(text, 1, (size_t)size, f)] = '\0';
  }
  fclose(f);
  return text;
}

int main(void) {
  const char* usage[] = {GOLDEN "/expected/example.usage.csv"};
  const char* bad[] = {GOLDEN "/inputs/bad/usage-quantity.csv"};
  char* json = NULL;
  char* error = NULL;
  char* expected = read_file(GOLDEN "/expected/example.meter.json");
  gpurent_matcher* m = NULL;
  int ok = gpurent_meter_json(GOLDEN "/expected/example.tariff.json", usage, 1, "2026-11", &json, &error) == GPURENT_OK && expected != NULL &&
           strcmp(json, expected) == 0;
  gpurent_free(json);
  free(expected);
  ok = ok && gpurent_meter_json(GOLDEN "/inputs/bad/tariff-ok.json", bad, 1, "2026-11", &json, &error) == GPURENT_EINVAL && json == NULL &&
       strstr(error, "usage-quantity.csv:3: field 'quantity'") != NULL;
  gpurent_free(error);
  ok = ok && gpurent_matcher_create(GOLDEN "/inputs/nodes.csv", NULL, NULL, &m, &error) == GPURENT_OK;
  ok = ok && gpurent_matcher_place(m, "{\"name\": \"job-1\", \"num_gpu\": 4}", &json, &error) == GPURENT_OK && strstr(json, "\"placed\": true");
  if (json != NULL) printf("gpurent %s placed: %s", gpurent_version(), json);
  gpurent_free(json);
  gpurent_matcher_destroy(m);
  return ok ? 0 : 1;
}
