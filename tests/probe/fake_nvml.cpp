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
//   the live state (GPU i's UUID is GPU-00000000-0000-0000-0000-0000000000ii):
//     util=87 | util=0,0,90      GPU utilization; a list answers its next value on each call
//                            (per GPU, cycling), so a watch sees a load start. Like NVML, a
//                            GPU with MIG enabled answers NOT_SUPPORTED.
//     memutil=12             memory utilization
//     used_mib=2048          memory used (free is the rest)
//     power_mw=412345 temp=54
//     ecc=1,0 ecc_agg=3,1    ECC errors corrected,uncorrected (volatile, aggregate)
//     retired=2,1            pages retired (multiple single-bit, double-bit)
//     remapped=4,0,1,0       rows remapped correctable,uncorrectable,pending,failed (like
//                            NVML, NOT_SUPPORTED while MIG is enabled)
//     unsupported=power,temp functions that answer NOT_SUPPORTED: uuid util power temp ecc
//                            retired remapped
//   With MIG on, each GPU instance is also a MIG device (UUID MIG-<id>, its slices' memory).
//
// Built three times: gpurent_fake_nvml (complete), gpurent_fake_nvml_partial
// (GPURENT_FAKE_NVML_PARTIAL: lacks nvmlGpuInstanceGetInfo, for the missing-symbol path) and
// gpurent_fake_nvml_minimal (GPURENT_FAKE_NVML_MINIMAL: an old NVML, without any live-state
// function but the deprecated nvmlDeviceGetTemperature).

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
  unsigned util_calls = 0;  // how many times its utilization was read
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
  std::vector<unsigned> util{87};
  unsigned memutil = 12;
  unsigned long long used_mib = 2048;
  unsigned power_mw = 412345;
  unsigned temp = 54;
  std::vector<unsigned> ecc{0, 0};
  std::vector<unsigned> ecc_agg{0, 0};
  std::vector<unsigned> retired{0, 0};
  std::vector<unsigned> remapped{0, 0, 0, 0};
  std::string unsupported;  // ",power,temp,"
};

config cfg;
bool initialized = false;
fake_gpu gpus[8];

unsigned long long number(std::string_view s) { return std::strtoull(std::string(s).c_str(), nullptr, 0); }

// "1,0" -> {1, 0}, at least `n` values (missing ones 0).
std::vector<unsigned> numbers(std::string_view s, std::size_t n) {
  std::vector<unsigned> out;
  while (!s.empty()) {
    const auto comma = s.find(',');
    out.push_back(static_cast<unsigned>(number(s.substr(0, comma))));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
  }
  if (out.size() < n) out.resize(n, 0);
  return out;
}

bool unsupported(std::string_view what) { return cfg.unsupported.find("," + std::string(what) + ",") != std::string::npos; }

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
    if (k == "init")
      cfg.init = static_cast<int>(number(v));
    else if (k == "count")
      cfg.count = static_cast<unsigned>(number(v));
    else if (k == "name")
      cfg.name = std::string(v);
    else if (k == "vendor")
      cfg.vendor = static_cast<unsigned>(number(v));
    else if (k == "device")
      cfg.device = static_cast<unsigned>(number(v));
    else if (k == "memory_mib")
      cfg.memory_mib = number(v);
    else if (k == "domain")
      cfg.domain = static_cast<unsigned>(number(v));
    else if (k == "bus")
      cfg.bus = static_cast<unsigned>(number(v));
    else if (k == "mig")
      cfg.mig = std::string(v);
    else if (k == "pending")
      cfg.pending = std::string(v);
    else if (k == "gi")
      parse_gis(v);
    else if (k == "gi_error")
      cfg.gi_error = static_cast<int>(number(v));
    else if (k == "nvlink")
      cfg.nvlink = cfg.nvlink_active = static_cast<unsigned>(number(v));
    else if (k == "nvlink_active")
      cfg.nvlink_active = static_cast<unsigned>(number(v));
    else if (k == "util")
      cfg.util = numbers(v, 1);
    else if (k == "memutil")
      cfg.memutil = static_cast<unsigned>(number(v));
    else if (k == "used_mib")
      cfg.used_mib = number(v);
    else if (k == "power_mw")
      cfg.power_mw = static_cast<unsigned>(number(v));
    else if (k == "temp")
      cfg.temp = static_cast<unsigned>(number(v));
    else if (k == "ecc")
      cfg.ecc = numbers(v, 2);
    else if (k == "ecc_agg")
      cfg.ecc_agg = numbers(v, 2);
    else if (k == "retired")
      cfg.retired = numbers(v, 2);
    else if (k == "remapped")
      cfg.remapped = numbers(v, 4);
    else if (k == "unsupported")
      cfg.unsupported = "," + std::string(v) + ",";
  }
  if (cfg.count > 8) cfg.count = 8;
  for (unsigned i = 0; i < cfg.count; ++i) gpus[i] = fake_gpu{i, cfg.bus + i};
}

fake_gpu* gpu(nvmlDevice_t d) {
  for (fake_gpu& g : gpus)
    if (reinterpret_cast<const nvmlDevice_st*>(&g) == d) return &g;
  return nullptr;
}

// A MIG device handle is its GPU instance's address.
const fake_gi* mig(nvmlDevice_t d) {
  if (cfg.mig != "1") return nullptr;
  for (const fake_gi& g : cfg.gis)
    if (reinterpret_cast<const nvmlDevice_st*>(&g) == d) return &g;
  return nullptr;
}

constexpr unsigned long long mib_bytes = 1024ULL * 1024ULL;

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
  if (const fake_gi* g = mig(d)) {  // a MIG device: its memory slices' share, nothing used
    m->total = cfg.memory_mib / 8 * g->size * mib_bytes;
    m->used = 0;
    m->free = m->total;
    return NVML_SUCCESS;
  }
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = cfg.memory_mib * mib_bytes;
  m->used = cfg.used_mib * mib_bytes;
  m->free = m->total - m->used;
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

#if !defined(GPURENT_FAKE_NVML_MINIMAL)
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int length) {
  std::string u;
  if (const fake_gi* g = mig(d))
    u = "MIG-" + std::to_string(g->id);
  else if (const fake_gpu* f = gpu(d))
    u = "GPU-00000000-0000-0000-0000-0000000000" + std::string(1, "0123456789abcdef"[f->index / 16]) + "0123456789abcdef"[f->index % 16];
  else
    return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("uuid")) return NVML_ERROR_NOT_SUPPORTED;
  if (length <= u.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(uuid, u.c_str(), u.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  if (mig(d) != nullptr) return NVML_ERROR_NOT_SUPPORTED;
  fake_gpu* g = gpu(d);
  if (g == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("util") || cfg.mig == "1") return NVML_ERROR_NOT_SUPPORTED;
  u->gpu = cfg.util[g->util_calls++ % cfg.util.size()];
  u->memory = cfg.memutil;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("power")) return NVML_ERROR_NOT_SUPPORTED;
  *mw = cfg.power_mw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t d, nvmlTemperature_v1_t* t) {
  if (gpu(d) == nullptr || t->version != nvmlTemperature_v1 || t->sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("temp")) return NVML_ERROR_NOT_SUPPORTED;
  t->temperature = static_cast<int>(cfg.temp);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long* n) {
  if (gpu(d) == nullptr || type < 0 || type > 1 || counter < 0 || counter > 1) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("ecc")) return NVML_ERROR_NOT_SUPPORTED;
  *n = (counter == NVML_VOLATILE_ECC ? cfg.ecc : cfg.ecc_agg)[static_cast<std::size_t>(type)];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int* count, unsigned long long* addresses) {
  if (gpu(d) == nullptr || cause < 0 || cause > 1) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("retired")) return NVML_ERROR_NOT_SUPPORTED;
  const unsigned have = cfg.retired[static_cast<std::size_t>(cause)];
  if (*count < have) {
    *count = have;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned i = 0; i < have; ++i) addresses[i] = 0x1000ULL * (i + 1);
  *count = have;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int* corr, unsigned int* unc, unsigned int* pending, unsigned int* failed) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("remapped") || cfg.mig == "1") return NVML_ERROR_NOT_SUPPORTED;
  *corr = cfg.remapped[0];
  *unc = cfg.remapped[1];
  *pending = cfg.remapped[2];
  *failed = cfg.remapped[3];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int* count) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = cfg.mig == "1" ? static_cast<unsigned>(cfg.gis.size()) : 0U;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t* out) {
  if (gpu(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg.mig != "1" || index >= cfg.gis.size()) return NVML_ERROR_NOT_FOUND;
  *out = reinterpret_cast<nvmlDevice_t>(&cfg.gis[index]);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int* id) {
  const fake_gi* g = mig(d);
  if (g == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *id = g->id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int* id) {
  if (mig(d) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *id = 0;
  return NVML_SUCCESS;
}
#endif

// The deprecated temperature call, which every NVML still exports.
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* c) {
  if (gpu(d) == nullptr || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  if (unsupported("temp")) return NVML_ERROR_NOT_SUPPORTED;
  *c = cfg.temp;
  return NVML_SUCCESS;
}

}  // extern "C"
