// Bindings for ember's random support (filled in by the issue that owns it).
#include "py_tensor.h"

namespace ember::python {

void init_random(PyObject* module) { (void)module; }

}  // namespace ember::python
