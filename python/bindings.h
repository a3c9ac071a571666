// python/bindings.h: the parts of the module sieve._sieve, one per library
// surface; python/module.cc calls each once.
#ifndef SIEVE_PYTHON_BINDINGS_H_
#define SIEVE_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace sieve::python {

void BindFilter(pybind11::module_& m);    // sieve.Filter
void BindSieve(pybind11::module_& m);     // sieve.Sieve
void BindFrontier(pybind11::module_& m);  // sieve.Frontier, sieve.Next
void BindCluster(pybind11::module_& m);   // sieve.ClusterFrontier

}  // namespace sieve::python

#endif  // SIEVE_PYTHON_BINDINGS_H_
