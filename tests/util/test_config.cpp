// The environment table (util/config.hpp): every kind's grammar with its
// edges (switch words in any case, counts at and past their range, seconds,
// choices, text), an empty value read as unset, each error naming the
// variable and the value, a reader asked for a name that is no row or of
// another kind (a bug: logic_error), check_environment refusing a bad value
// of any row and listing STARZK_* names that are no row, and the table
// itself (unique names, all STARZK_, counts with a range, choices with
// words).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "util/config.hpp"

namespace starzk {
namespace {

class env_t {  // sets a variable for one scope
 public:
  env_t(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~env_t() { unsetenv(name_); }

 private:
  const char* name_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(config, switches_read_the_policies_words_in_any_case) {
  for (const char* on : {"1", "on", "ON", "true", "Yes"}) {
    env_t e("STARZK_PIN_WITNESS", on);
    EXPECT_EQ(config::get_switch("STARZK_PIN_WITNESS"), std::optional<bool>(true)) << on;
  }
  for (const char* off : {"0", "off", "False", "no"}) {
    env_t e("STARZK_PIN_WITNESS", off);
    EXPECT_EQ(config::get_switch("STARZK_PIN_WITNESS"), std::optional<bool>(false)) << off;
  }
  {
    env_t e("STARZK_PIN_WITNESS", "");
    EXPECT_FALSE(config::get_switch("STARZK_PIN_WITNESS").has_value());  // empty = unset
  }
  env_t e("STARZK_PIN_WITNESS", "2");
  const std::string why = error_of([] { config::get_switch("STARZK_PIN_WITNESS"); });
  EXPECT_NE(why.find("STARZK_PIN_WITNESS='2'"), std::string::npos) << why;
}

TEST(config, counts_keep_to_their_range) {
  EXPECT_FALSE(config::get_count("STARZK_LOADERS").has_value());
  {
    env_t e("STARZK_LOADERS", "0");
    EXPECT_EQ(config::get_count("STARZK_LOADERS"), std::optional<uint64_t>(0));
  }
  {
    env_t e("STARZK_LOADERS", "64");
    EXPECT_EQ(config::get_count("STARZK_LOADERS"), std::optional<uint64_t>(64));
  }
  for (const char* bad : {"65", "-1", "+3", "3x", "x", " 3", "99999999999999999999999"}) {
    env_t e("STARZK_LOADERS", bad);
    const std::string why = error_of([] { config::get_count("STARZK_LOADERS"); });
    EXPECT_NE(why.find(std::string("STARZK_LOADERS='") + bad + "'"), std::string::npos) << bad << ": " << why;
    EXPECT_NE(why.find("0..64"), std::string::npos) << why;
  }
  env_t e("STARZK_MEM_TASK_THREADS", "0");  // its range starts at 1
  EXPECT_FALSE(error_of([] { config::get_count("STARZK_MEM_TASK_THREADS"); }).empty());
}

TEST(config, seconds_choices_and_text) {
  {
    env_t e("STARZK_WATCH_S", "2.5");
    EXPECT_EQ(config::get_seconds("STARZK_WATCH_S"), std::optional<double>(2.5));
  }
  for (const char* bad : {"-1", "nan", "soon", "1e10"}) {
    env_t e("STARZK_WATCH_S", bad);
    EXPECT_FALSE(error_of([] { config::get_seconds("STARZK_WATCH_S"); }).empty()) << bad;
  }
  {
    env_t e("STARZK_PIN_KEY", "ALL");
    EXPECT_EQ(config::get_word("STARZK_PIN_KEY"), std::optional<std::string>("all"));  // the row's spelling
  }
  {
    env_t e("STARZK_PIN_KEY", "some");
    const std::string why = error_of([] { config::get_word("STARZK_PIN_KEY"); });
    EXPECT_NE(why.find("one of streamed,all,0,off"), std::string::npos) << why;
  }
  env_t e("STARZK_KEY_STREAM", "h,b_g2");
  EXPECT_EQ(config::get_word("STARZK_KEY_STREAM"), std::optional<std::string>("h,b_g2"));
}

TEST(config, readers_refuse_names_and_kinds_that_are_not_rows) {
  EXPECT_THROW(config::get_switch("STARZK_NO_SUCH"), std::logic_error);
  EXPECT_THROW(config::get_switch("STARZK_LOADERS"), std::logic_error);
  EXPECT_THROW(config::get_count("STARZK_PIN_KEY"), std::logic_error);
  EXPECT_THROW(config::get_word("STARZK_WATCH_S"), std::logic_error);
}

TEST(config, the_start_check_refuses_any_bad_row_and_names_unknown_ones) {
  EXPECT_NO_THROW(config::check_environment());
  {
    env_t e("STARZK_GPU_RUN_AHEAD", "-2");  // a policy rule: checked too
    const std::string why = error_of([] { config::check_environment(); });
    EXPECT_NE(why.find("STARZK_GPU_RUN_AHEAD='-2'"), std::string::npos) << why;
  }
  env_t e("STARZK_LAODERS", "4");  // a typo
  const std::vector<std::string> unknown = config::check_environment();
  EXPECT_NE(std::find(unknown.begin(), unknown.end(), "STARZK_LAODERS"), unknown.end());
}

TEST(config, the_table_is_well_formed) {
  std::set<std::string> names;
  for (const config::var_t& v : config::vars) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " twice";
    EXPECT_EQ(std::string(v.name).rfind("STARZK_", 0), 0u) << v.name;
    EXPECT_GT(std::string(v.doc).size(), 10u) << v.name;
    EXPECT_GT(std::string(v.fallback).size(), 0u) << v.name;
    if (v.kind == config::kind_t::count) {
      EXPECT_NE(std::string(v.choices).find(".."), std::string::npos) << v.name;
    }
    if (v.kind == config::kind_t::choice) {
      EXPECT_NE(std::string(v.choices).find(','), std::string::npos) << v.name;
    }
  }
}

}  // namespace
}  // namespace starzk
