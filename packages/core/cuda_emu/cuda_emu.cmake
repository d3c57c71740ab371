# The CUDA emulator build (EMBER_CUDA_EMU=ON; a development tool, see cuda_emu/README.md): the CUDA
# backend's sources compiled as host C++ against cuda_emu/include, their `<<<...>>>` launches
# rewritten (launch_rewrite.py), over the emulated runtime (libember_cuda_emu.so) and cuBLAS
# (libcublas.so.13), both installed beside _C.
set(EMU_DIR ${CMAKE_CURRENT_SOURCE_DIR}/cuda_emu)
set(EMU_SRC ${CMAKE_CURRENT_BINARY_DIR}/emu_src)

add_library(ember_cuda_emu SHARED ${EMU_DIR}/src/runtime.cpp ${EMU_DIR}/src/scheduler.cpp)
target_include_directories(ember_cuda_emu PUBLIC ${EMU_DIR}/include)
set_target_properties(ember_cuda_emu PROPERTIES CXX_VISIBILITY_PRESET hidden)
add_library(ember_cublas_emu SHARED ${EMU_DIR}/src/cublas.cpp)
target_link_libraries(ember_cublas_emu PRIVATE ember_cuda_emu OpenBLAS::OpenBLAS)
set_target_properties(ember_cublas_emu PROPERTIES OUTPUT_NAME cublas PREFIX lib SUFFIX ".so.13"
  CXX_VISIBILITY_PRESET hidden INSTALL_RPATH "$ORIGIN;$ORIGIN/../scipy_openblas32/lib" BUILD_WITH_INSTALL_RPATH ON)

file(GLOB BACKEND_SOURCES ${CSRC}/kernels/cuda/*.cpp)
list(FILTER BACKEND_SOURCES EXCLUDE REGEX "/cuda_stub\\.cpp$")
file(GLOB EMU_CUDA_SOURCES ${CSRC}/kernels/cuda/*.cu ${CSRC}/kernels/cuda/*.cuh)
list(FILTER GEN_CUDA INCLUDE REGEX "\\.cu$")
set(EMU_HEADERS)
foreach(src ${EMU_CUDA_SOURCES} ${GEN_CUDA})
  get_filename_component(name ${src} NAME)
  if(name MATCHES "\\.cu$")
    set(out ${EMU_SRC}/kernels/cuda/${name}.cpp)
    list(APPEND BACKEND_SOURCES ${out})
  else()
    set(out ${EMU_SRC}/kernels/cuda/${name})
    list(APPEND EMU_HEADERS ${out})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${Python_EXECUTABLE} ${EMU_DIR}/launch_rewrite.py ${src} ${out}
    DEPENDS ${src} ${EMU_DIR}/launch_rewrite.py)
endforeach()
add_custom_target(ember_emu_headers DEPENDS ${EMU_HEADERS})

# Called once _C exists: the rewritten headers shadow the originals, the emulated runtime links in.
function(ember_link_cuda_emu target)
  add_dependencies(${target} ember_emu_headers)
  target_include_directories(${target} BEFORE PRIVATE ${EMU_SRC})
  target_link_libraries(${target} PRIVATE ember_cuda_emu)
  install(TARGETS ember_cuda_emu ember_cublas_emu LIBRARY DESTINATION ember)
endfunction()
