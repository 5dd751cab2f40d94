// SPDX-License-Identifier: MIT
// A fake libnvidia-ml for the probe tests: a shared library with NVML's C ABI that answers
// like one or more Hopper GPUs (H100/H200 MIG profile ids and placements). Loaded in place of
// the real one through GPURENT_NVML_LIBRARY. What it answers comes from the environment,
// read at nvmlInit_v2 (so each test that reopens it can change it):
//
//   GPURENT_FAKE_NVML="key=value;key=value..."   (every key optional)
//     init=9                 nvmlInit_v2 returns this code (9 = driver not loaded)
//     count=1                number of GPUs (bus 0x3b, 0x3c, ...)
//     name=NVIDIA H200       device name
//     vendor=0x10de device=0x2335     PCI vendor and device id
//     memory_mib=143771      total memory
//     domain=0x00fe bus=0x3b PCI address of the first GPU
//     mig=1|0|none           MIG mode enabled / disabled / not supported; pending=1|0
//     gi=9@4,14@0,19@2       GPU instances: profile id @ start slice [:size]; size defaults to
//                            the profile's memory slices
//     gi_error=4             nvmlDeviceGetGpuInstances returns this code (4 = no permission)
//     nvlink=18 nvlink_active=18     NVLink links and how many are up (0: no NVLink)
//
// Built twice: gpurent_fake_nvml (complete) and gpurent_fake_nvml_partial
// (GPURENT_FAKE_NVML_PARTIAL: lacks nvmlGpuInstanceGetInfo, for the missing-symbol path).

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/probe/nvml.hpp>

namespace {
using namespace gpurent::probe::nvml_abi;

struct fake_gi {
  unsigned id = 0;
  unsigned profile_id = 0;
  unsigned start = 0;
  unsigned size = 0;
};

struct fake_gpu {
  unsigned index = 0;
  unsigned bus = 0;
};

struct profile_kind {
  unsigned kind;  // NVML_GPU_INSTANCE_PROFILE_*
  unsigned id;    // profile id
  unsigned compute_slices;
  unsigned max_instances;
  unsigned memory_slices;
};

// The Hopper 8-slice table (nvidia-smi mig -lgip on H100/H200): kind -> id, slices, count.
constexpr profile_kind kinds[] = {
    {0x0, 19, 1, 7, 1},  // 1g
    {0x1, 14, 2, 3, 2},  // 2g
    {0x2, 9, 3, 2, 4},   // 3g
    {0x3, 5, 4, 1, 4},   // 4g
    {0x4, 0, 7, 1, 8},   // 7g
    {0x7, 20, 1, 1, 1},  // 1g+me
    {0x9, 15, 1, 4, 2},  // 1g double memory
};

struct config {
  int init = 0;
  unsigned count = 1;
  std::string name = "NVIDIA H200";
  unsigned vendor = 0x10de;
  unsigned device = 0x2335;
  unsigned long long memory_mib = 143771;
  unsigned domain = 0x00fe;
  unsigned bus = 0x3b;
  std::string mig = "1";
  std::string pending;
  std::vector<fake_gi> gis;
  int gi_error = 0;
  unsigned nvlink = 18;
  unsigned nvlink_active = 18;
};

config cfg;
bool initialized = false;
fake_gpu gpus[8];

unsigned long long number(std::string_view s) {
  return std::strtoull(std::string(s).c_str(), nullptr, 0);
}

unsigned memory_slices_of(unsigned profile_id) {
  for (const profile_kind& k : kinds)
    if (k.id == profile_id) return k.memory_slices;
  return 1;
}

void parse_gis(std::string_view s) {
  cfg.gis.clear();
  unsigned next_id = 1;
  while (!s.empty()) {
    const auto comma = s.find(',');
    const std::string_view item = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    const auto at = item.find('@');
    if (at == std::string_view::npos) continue;
    fake_gi g;
    g.id = next_id++;
    g.profile_id = static_cast<unsigned>(number(item.substr(0, at)));
    std::string_view rest = item.substr(at + 1);
    const auto colon = rest.find(':');
    g.start = static_cast<unsigned>(number(rest.substr(0, colon)));
    g.size = colon == std::string_view::npos ? memory_slices_of(g.profile_id) : static_cast<unsigned>(number(rest.substr(colon + 1)));
    cfg.gis.push_back(g);
  }
}

void configure() {
  cfg = config{};
  parse_gis("9@4,14@0,19@2");
  const char* env = std::getenv("GPURENT_FAKE_NVML");
  std::string_view s = env != nullptr ? env : "";
  while (!s.empty()) {
    const auto semi = s.find(';');
    const std::string_view kv = s.substr(0, semi);
    s = semi == std::string_view::npos ? std::string_view() : s.substr(semi + 1);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view k = kv.substr(0, eq);
    const std::string_view v = kv.substr(eq + 1);
    if (k == "init") cfg.init = static_cast<int>(number(v));
    else if (k == "count") cfg.count = static_cast<unsigned>(number(v));
    else if (k == "name") cfg.name = std::string(v);
    else if (k == "vendor") cfg.vendor = static_cast<unsigned>(number(v));
    else if (k == "device") cfg.device = static_cast<unsigned>(number(v));
    else if (k == "memory_mib") cfg.memory_mib = number(v);
    else if (k == "domain") cfg.domain = static_cast<unsigned>(number(v));
    else if (k == "bus") cfg.bus = static_cast<unsigned>(number(v));
    else if (k == "mig") cfg.mig = std::string(v);
    else if (k == "pending") cfg.pending = std::string(v);
    else if (k == "gi") parse_gis(v);
    else if (k == "gi_error") cfg.gi_error = static_cast<int>(number(v));
    else if (k == "nvlink") cfg.nvlink = cfg.nvlink_active = static_cast<unsigned>(number(v));
    else if (k == "nvlink_active") cfg.nvlink_active = static_cast<unsigned>(number(v));
  }
  if (cfg.count > 8) cfg.count = 8;
  for (unsigned i = 0; i < cfg.count; ++i) gpus[i] = fake_gpu{i, cfg.bus + i};
}

const fake_gpu* gpu(nvmlDevice_t d) {
  for (const fake_gpu& g : gpus)
    if (reinterpret_cast<const nvmlDevice_st*>(&g) == d) return &g;
  return nullptr;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  configure();
  if (cfg.init != NVML_SUCCESS) return cfg.init;
  initialized = true;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown() {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  initialized = false;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* n) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  *n = cfg.count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (i >= cfg.count) return NVML_ERROR_INVALID_ARGUMENT;
  *d = reinterpret_cast<nvmlDevice_t>(&gpus[i]);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int length) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (length <= cfg.name.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(name, cfg.name.c_str(), cfg.name.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* p) {
  const fake_gpu* g = gpu(d);
  if (g == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *p = nvmlPciInfo_t{};
  p->domain = cfg.domain;
  p->bus = g->bus;
  p->device = 0;
  p->pciDeviceId = (cfg.device << 16) | (cfg.vendor & 0xFFFFU);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = cfg.memory_mib * 1024ULL * 1024ULL;
  m->used = 0;
  m->free = m->total;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg.mig == "none") return NVML_ERROR_NOT_SUPPORTED;
  *current = cfg.mig == "1" ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  const std::string& p = cfg.pending.empty() ? cfg.mig : cfg.pending;
  *pending = p == "1" ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned int kind, nvmlGpuInstanceProfileInfo_t* info) {
  if (gpu(d) == nullptr || kind >= NVML_GPU_INSTANCE_PROFILE_KINDS) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg.mig != "1") return NVML_ERROR_NOT_SUPPORTED;
  for (const profile_kind& k : kinds) {
    if (k.kind != kind) continue;
    *info = nvmlGpuInstanceProfileInfo_t{};
    info->id = k.id;
    info->sliceCount = k.compute_slices;
    info->instanceCount = k.max_instances;
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t d, unsigned int profile_id, nvmlGpuInstance_t* out, unsigned int* count) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg.gi_error != 0) return cfg.gi_error;
  unsigned n = 0;
  for (const fake_gi& g : cfg.gis) n += g.profile_id == profile_id ? 1U : 0U;
  if (n > *count) return NVML_ERROR_INSUFFICIENT_SIZE;
  n = 0;
  for (fake_gi& g : cfg.gis)
    if (g.profile_id == profile_id) out[n++] = reinterpret_cast<nvmlGpuInstance_t>(&g);
  *count = n;
  return NVML_SUCCESS;
}

#if !defined(GPURENT_FAKE_NVML_PARTIAL)
nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t* info) {
  for (const fake_gi& g : cfg.gis) {
    if (reinterpret_cast<const nvmlGpuInstance_st*>(&g) != gi) continue;
    info->device = reinterpret_cast<nvmlDevice_t>(&gpus[0]);
    info->id = g.id;
    info->profileId = g.profile_id;
    info->placement = nvmlGpuInstancePlacement_t{g.start, g.size};
    return NVML_SUCCESS;
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}
#endif

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, nvmlEnableState_t* active) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg.nvlink == 0) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= cfg.nvlink) return NVML_ERROR_INVALID_ARGUMENT;
  *active = link < cfg.nvlink_active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

}  // extern "C"
