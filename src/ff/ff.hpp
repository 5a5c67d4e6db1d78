// The whole finite-field layer: F_p, F_r and the pairing tower
// F_p2 -> F_p6 -> F_p12 of BLS12-381 (host types; no StarPU, no CUDA).
#pragma once

#include "ff/fp.hpp"
#include "ff/fp12.hpp"
#include "ff/fp2.hpp"
#include "ff/fp6.hpp"
#include "ff/fr.hpp"
#include "ff/frobenius.hpp"
#include "ff/mont.hpp"
