// RnnKernels' CUDA entries (kernels/cuda/rnn_kernels.cu): the recurrent cells' fused gate passes
// over B rows (kernels/rnn_rows.h), every pointer into contiguous rows on the device.
#pragma once
#include <cstdint>

#include "kernels/rnn_rows.h"

namespace ember::cuda {

void cell_rows_f(const rnn::Rows<float>& p, int64_t B, bool backward);
void cell_rows_d(const rnn::Rows<double>& p, int64_t B, bool backward);
void lstm_seq_f(const rnn::LstmSeqRows<float>& p, int64_t B, bool backward);
void lstm_seq_d(const rnn::LstmSeqRows<double>& p, int64_t B, bool backward);

}  // namespace ember::cuda
