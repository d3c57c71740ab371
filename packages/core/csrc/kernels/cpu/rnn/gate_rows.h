// The recurrent cells' fused gate passes (CPU): the entries of the backend table's RnnKernels.
#pragma once
#include <cstdint>

#include "kernels/rnn_rows.h"

namespace ember::rnn {

// B rows of one cell step: forward writes hy (and cy), backward the gate gradients.
void cell_rows(const Rows<float>& p, int64_t B, bool backward);
void cell_rows(const Rows<double>& p, int64_t B, bool backward);
// B rows of one LSTM step of the sequence path.
void lstm_seq(const LstmSeqRows<float>& p, int64_t B, bool backward);
void lstm_seq(const LstmSeqRows<double>& p, int64_t B, bool backward);

}  // namespace ember::rnn
