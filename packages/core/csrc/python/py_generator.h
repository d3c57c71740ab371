// ember.Generator (_C.Generator): the Python object around an ember::Generator.
#pragma once
#include "../core/generator.h"
#include "py_common.h"

namespace ember::python {

struct PyGenerator {
  PyObject_HEAD Ref<Generator> gen;
};

extern PyTypeObject* GeneratorType;

// The generator= argument of `fname`: nullptr (default generator) for None,
// TypeError for anything that is not a Generator.
Generator* generator_arg(PyObject* o, const char* fname);

// The Python object of CUDA device `index`'s default generator (index >= 0), one per device for
// the process (a new reference).
PyObject* cuda_default_generator_object(int index);

// Adds Generator and default_generator to the module.
void init_generator(PyObject* module);

}  // namespace ember::python
