// manifest.cpp: reading, validating and writing job manifests (see manifest.hpp).
#include "cli/manifest.hpp"

#include <cstdio>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

#include "io/io_error.hpp"
#include "io/key_cache.hpp"

namespace starzk::cli {

namespace fs = std::filesystem;

bool manifest_job_t::key_is_params() const { return key.extension() == ".params"; }
bool manifest_job_t::key_needs_circuit() const { return key_is_params() || key.extension() == ".szpk"; }

fs::path manifest_job_t::proof_json(size_t i) const { return out_dir / ("proof-" + std::to_string(i) + ".json"); }
fs::path manifest_job_t::public_json(size_t i) const { return out_dir / ("public-" + std::to_string(i) + ".json"); }

size_t manifest_t::partitions() const {
  size_t n = 0;
  for (const manifest_job_t& j : jobs) n += j.witnesses.size();
  return n;
}

namespace {

[[noreturn]] void fail(const std::string& origin, size_t job, const std::string& name, const std::string& what) {
  std::string where = "job " + std::to_string(job + 1);
  if (!name.empty()) where += " ('" + printable(name) + "')";
  throw io_error(origin, where + ": " + what);  // "origin: job N ('name'): what", exit status 3
}

fs::path resolve(const fs::path& base, const std::string& p) {
  const fs::path path(p);
  return path.is_absolute() || base.empty() ? path : base / path;
}

// The fields of one job, however they were spelled in the file.
struct raw_job_t {
  std::map<std::string, std::string> text;  // key, circuit, name, out_dir, proofs_bin
  std::vector<std::string> witnesses;
  bool has_witnesses = false;
};

const std::set<std::string> k_fields = {"name", "key", "circuit", "witnesses", "out_dir", "proofs_bin"};

manifest_t finish(std::vector<raw_job_t> raws, const fs::path& base, const std::string& origin) {
  manifest_t m;
  m.file = origin;
  if (raws.empty()) throw io_error(origin, "no jobs (add a [[job]] table)");
  std::set<fs::path> outputs;
  for (size_t i = 0; i < raws.size(); ++i) {
    raw_job_t& r = raws[i];
    manifest_job_t j;
    const std::string given = r.text.count("name") ? r.text["name"] : "";  // for messages
    j.name = given.empty() ? "job-" + std::to_string(i + 1) : given;
    if (!r.text.count("key") || r.text["key"].empty()) fail(origin, i, given, "field 'key' is missing");
    j.key = resolve(base, r.text["key"]);
    const std::string ext = j.key.extension().string();
    if (ext != ".zkey" && ext != ".params" && ext != ".szpk" && ext != ".szkc")
      fail(origin, i, given,
           "field 'key': '" + r.text["key"] + "' is not a .zkey, .params, .szpk (packed) or .szkc (cache) file");
    if (r.text.count("circuit")) j.circuit = resolve(base, r.text["circuit"]);
    if (j.key_needs_circuit() && j.circuit.empty())
      fail(origin, i, given, "field 'circuit' is required with a " + ext + " key (it carries no QAP matrices)");
    if (!r.has_witnesses) fail(origin, i, given, "field 'witnesses' is missing");
    if (r.witnesses.empty()) fail(origin, i, given, "field 'witnesses' is empty");
    for (const std::string& w : r.witnesses) j.witnesses.push_back(resolve(base, w));
    if (r.text.count("out_dir")) j.out_dir = resolve(base, r.text["out_dir"]);
    if (r.text.count("proofs_bin")) j.proofs_bin = resolve(base, r.text["proofs_bin"]);
    if (j.out_dir.empty() && j.proofs_bin.empty())
      fail(origin, i, given, "no output: give 'out_dir' (proof.json files) and/or 'proofs_bin' (192-byte proofs)");
    std::vector<fs::path> mine;
    if (!j.proofs_bin.empty()) mine.push_back(j.proofs_bin.lexically_normal());
    if (!j.out_dir.empty())
      for (size_t k = 0; k < j.witnesses.size(); ++k) mine.push_back(j.proof_json(k).lexically_normal());
    for (const fs::path& o : mine)
      if (!outputs.insert(o).second)
        fail(origin, i, given, "output '" + o.string() + "' is also written by another job");
    m.jobs.push_back(std::move(j));
  }
  return m;
}

// TOML allows bytes >= 0x80 only inside strings and comments (keys,
// values and whitespace are ASCII), and toml++ 3.3 reaches an unreachable
// branch (undefined behaviour) when it asks whether such a byte is
// whitespace: outside a string ("a = 1 \xc3\xa9", or a quote where no
// string may start, "a = 2\"\"\"\xc3\xa9"), and after a line-ending
// backslash in a multi-line string. So text that parses as TOML (with
// those bytes replaced, parse_manifest_toml) is scanned before toml++ sees
// it, as strictly as TOML's grammar allows:
//   - a comment runs from # to the end of the line;
//   - a string ("...", '...', """...""", '''...''') starts only where one
//     may: at the start of a line or after =, [, {, ',' or '.' (whitespace
//     and comments between), so a quote anywhere else is a plain byte;
//   - a single-line string ends at the end of its line, as in TOML;
//   - in a basic string, a backslash followed by whitespace (a line-ending
//     backslash) must be followed, after the whitespace, by an ASCII byte;
//   - any byte >= 0x80 elsewhere is refused with its line.
void check_toml_ascii(std::string_view t, const std::string& origin) {
  size_t line = 1;
  char prev = '\n';  // the last significant byte outside strings and comments
  auto refuse = [&] {
    throw io_error(origin, "line " + std::to_string(line) + ": a non-ASCII character outside a string or comment");
  };
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') ++line;
    if (c == '#') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
      continue;
    }
    const bool string_may_start =
        prev == '\n' || prev == '=' || prev == '[' || prev == '{' || prev == ',' || prev == '.';
    if ((c == '"' || c == '\'') && string_may_start) {
      const bool multi = t.substr(i, 3) == std::string(3, c), basic = c == '"';
      i += multi ? 3 : 1;
      for (; i < t.size(); ++i) {
        if (t[i] == '\n') {
          ++line;
          if (!multi) break;  // unterminated: TOML ends it here (and so does this scan)
        } else if (basic && t[i] == '\\') {
          if (i + 1 < t.size() && is_space(t[i + 1])) {
            while (i + 1 < t.size() && is_space(t[i + 1])) line += t[++i] == '\n';
            if (i + 1 < t.size() && static_cast<unsigned char>(t[i + 1]) >= 0x80) refuse();
          } else {
            ++i;
          }
        } else if (t[i] == c && (!multi || t.substr(i, 3) == std::string(3, c))) {
          if (multi) i += 2;
          while (multi && i + 1 < t.size() && t[i + 1] == c) ++i;  // """"" : quotes inside, then the end
          break;
        }
      }
      prev = i < t.size() && t[i] == '\n' ? '\n' : c;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) refuse();
    if (c == '\n' || !is_space(c)) prev = c;
  }
}

}  // namespace

std::string printable(std::string_view s) {
  // Control characters (C0, DEL, and C1 as UTF-8: C2 80..C2 9F) would reach
  // the terminal as escape sequences; they are written as \xNN instead.
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c == 0x9B || c1 || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x",
                    c == 0xC2 && c1 ? unsigned(static_cast<unsigned char>(s[++i])) : unsigned(c));
      out += hex;
    } else {
      out += char(c);
    }
  }
  return out;
}

std::string manifest_job_t::label() const {
  std::string s(1, '\'');
  s += printable(name);
  s += '\'';
  return s;
}

manifest_t parse_manifest_toml(std::string_view text, const fs::path& base, const std::string& origin) {
  auto parse = [&](std::string_view t) {
    try {
      return toml::parse(t, origin);
    } catch (const toml::parse_error& e) {
      std::ostringstream msg;
      msg << "line " << e.source().begin.line << ", column " << e.source().begin.column << ": " << e.description();
      throw io_error(origin, msg.str());
    }
  };
  // toml++ is given non-ASCII bytes only where TOML allows them (see
  // check_toml_ascii): the structure is parsed first with every such byte
  // replaced by 'x' (pure ASCII is safe), so that the scan, which follows
  // TOML's grammar, runs on text known to be well-formed.
  std::string ascii(text);
  for (char& ch : ascii)
    if (static_cast<unsigned char>(ch) >= 0x80) ch = 'x';
  (void)parse(ascii);
  check_toml_ascii(text, origin);
  const toml::table doc = parse(text);
  for (auto&& [k, v] : doc)
    if (k.str() != "job") throw io_error(origin, "unknown top-level entry '" + std::string(k.str()) + "'");
  std::vector<raw_job_t> raws;
  const toml::node* jobs = doc.get("job");
  if (jobs && !jobs->is_array_of_tables()) throw io_error(origin, "'job' must be an array of tables ([[job]])");
  if (jobs)
    for (const toml::node& n : *jobs->as_array()) {
      const toml::table& t = *n.as_table();
      raw_job_t r;
      const size_t index = raws.size();
      for (auto&& [k, v] : t) {
        const std::string key(k.str());
        if (!k_fields.count(key)) fail(origin, index, "", "unknown field '" + key + "'");
        if (key == "witnesses") {
          const toml::array* a = v.as_array();
          if (!a) fail(origin, index, "", "field 'witnesses' must be an array of file names");
          r.has_witnesses = true;
          for (const toml::node& w : *a) {
            if (!w.is_string()) fail(origin, index, "", "field 'witnesses' holds a non-string");
            r.witnesses.push_back(std::string(*w.value<std::string>()));
          }
        } else {
          if (!v.is_string()) fail(origin, index, "", "field '" + key + "' must be a string");
          r.text[key] = *v.value<std::string>();
        }
      }
      raws.push_back(std::move(r));
    }
  return finish(std::move(raws), base, origin);
}

manifest_t parse_manifest_json(std::string_view text, const fs::path& base, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw io_error(origin, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
    throw io_error(origin, "expected {\"jobs\": [...]}");
  for (auto& [k, v] : doc.items())
    if (k != "jobs") throw io_error(origin, "unknown top-level entry '" + k + "'");
  std::vector<raw_job_t> raws;
  for (const nlohmann::json& j : doc["jobs"]) {
    const size_t index = raws.size();
    if (!j.is_object()) fail(origin, index, "", "a job must be an object");
    raw_job_t r;
    for (auto& [key, v] : j.items()) {
      if (!k_fields.count(key)) fail(origin, index, "", "unknown field '" + key + "'");
      if (key == "witnesses") {
        if (!v.is_array()) fail(origin, index, "", "field 'witnesses' must be an array of file names");
        r.has_witnesses = true;
        for (const nlohmann::json& w : v) {
          if (!w.is_string()) fail(origin, index, "", "field 'witnesses' holds a non-string");
          r.witnesses.push_back(w.get<std::string>());
        }
      } else {
        if (!v.is_string()) fail(origin, index, "", "field '" + key + "' must be a string");
        r.text[key] = v.get<std::string>();
      }
    }
    raws.push_back(std::move(r));
  }
  return finish(std::move(raws), base, origin);
}

manifest_t read_manifest(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) throw io_error(file, "cannot open the manifest");
  // Its size first: a manifest is a few hundred bytes a job, and the parsed
  // document takes several times its text.
  constexpr uint64_t max_bytes = uint64_t(64) << 20;
  std::error_code ec;
  if (const uint64_t size = fs::file_size(file, ec); !ec && size > max_bytes)
    throw io_error(file, "a manifest of " + std::to_string(size) + " bytes, more than " + std::to_string(max_bytes));
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  const fs::path base = file.parent_path();
  bool json = file.extension() == ".json";
  if (file.extension() != ".json" && file.extension() != ".toml") {
    const size_t first = text.find_first_not_of(" \t\r\n");
    json = first != std::string::npos && text[first] == '{';
  }
  manifest_t m = json ? parse_manifest_json(text, base, file.string()) : parse_manifest_toml(text, base, file.string());
  m.file = file;
  return m;
}

void check_manifest_inputs(const manifest_t& m) {
  for (size_t i = 0; i < m.jobs.size(); ++i) {
    const manifest_job_t& j = m.jobs[i];
    auto need = [&](const fs::path& p, const char* field) {
      if (!fs::is_regular_file(p))
        fail(m.file.string(), i, j.name, std::string(field) + ": no file '" + p.string() + "'");
    };
    need(j.key, "key");
    if (!j.circuit.empty()) need(j.circuit, "circuit");
    if (j.circuit.empty() && j.key.extension() == ".szkc" &&
        key_cache_view_t(j.key, cache_check_t::header).convention == root_convention_t::bellman)
      fail(m.file.string(), i, j.name,
           "field 'circuit' is required with '" + j.key.filename().string() +
               "', a key cache made from a bellman/Filecoin key (it carries no QAP matrices)");
    for (const fs::path& w : j.witnesses) need(w, "witnesses");
  }
}

std::string manifest_to_toml(const manifest_t& m) {
  std::ostringstream o;
  o << "# starzk job manifest: run with  starzk prove --manifest <this file>\n";
  for (const manifest_job_t& j : m.jobs) {
    toml::table t;
    t.insert("name", j.name);
    t.insert("key", j.key.generic_string());
    if (!j.circuit.empty()) t.insert("circuit", j.circuit.generic_string());
    toml::array ws;
    for (const fs::path& w : j.witnesses) ws.push_back(w.generic_string());
    t.insert("witnesses", ws);
    if (!j.out_dir.empty()) t.insert("out_dir", j.out_dir.generic_string());
    if (!j.proofs_bin.empty()) t.insert("proofs_bin", j.proofs_bin.generic_string());
    o << "\n";
    if (!j.note.empty()) o << "# " << j.note << "\n";
    o << "[[job]]\n" << t << "\n";
  }
  return o.str();
}

}  // namespace starzk::cli
