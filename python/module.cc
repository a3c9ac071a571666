// python/module.cc: the extension module sieve._sieve (the package sieve,
// python/sieve/__init__.py, re-exports it). docs/python.md is its guide.
#include <pybind11/pybind11.h>

#include "python/bindings.h"
#include "python/py_support.h"

PYBIND11_MODULE(_sieve, m) {
  m.doc() =
      "Sieve's filter, Sieve, Frontier and ClusterFrontier for Python (the C++ "
      "libraries sieve::filter, sieve::frontier and sieve::cluster; "
      "docs/python.md).";
  sieve::python::DefineExceptions(m);
  sieve::python::BindFilter(m);
  sieve::python::BindSieve(m);
  sieve::python::BindFrontier(m);
  sieve::python::BindCluster(m);
}
