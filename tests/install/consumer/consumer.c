/*
 * consumer.c: a program outside the tree that uses the installed
 * libstarzk_policies, built by tests/install/install_test.sh once through
 * find_package(starzk) and once through pkg-config. It lists the policies
 * and exits 0 only if "starzk" is among them and can be looked up.
 */
#include <stdio.h>
#include <string.h>

#include "policies/starzk_plugin.h"
#include "policies/starzk_policies.h"

int main(void) {
  int found = 0;
  for (const char* const* n = starzk_policy_names(); *n; ++n) {
    printf("%s\n", *n);
    found = found || strcmp(*n, "starzk") == 0;
  }
  return found && starzk_policy_by_name("starzk") ? 0 : 1;
}
