package solana

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/require"
)

// What a node's answer means depends on the Client's commitment: a
// transaction counts, paid or failed, only at it.
func TestStatusOfAnswerAtCommitment(t *testing.T) {
	t.Parallel()
	zero := uint64(0)
	failure := map[string]any{"InstructionError": []any{1, map[string]any{"Custom": 1}}}
	answer := func(level rpc.ConfirmationStatusType, confirmations *uint64, err any) *rpc.SignatureStatusesResult {
		return &rpc.SignatureStatusesResult{Slot: 7, ConfirmationStatus: level, Confirmations: confirmations, Err: err}
	}
	cases := []struct {
		desc       string
		answer     *rpc.SignatureStatusesResult
		commitment rpc.CommitmentType
		want       State
	}{
		{desc: "null is not found", answer: nil, commitment: rpc.CommitmentConfirmed, want: NotFound},
		{desc: "processed is pending", answer: answer(rpc.ConfirmationStatusProcessed, &zero, nil), commitment: rpc.CommitmentConfirmed, want: Pending},
		{desc: "confirmed at confirmed", answer: answer(rpc.ConfirmationStatusConfirmed, &zero, nil), commitment: rpc.CommitmentConfirmed, want: Confirmed},
		{desc: "confirmed is pending at finalized", answer: answer(rpc.ConfirmationStatusConfirmed, &zero, nil), commitment: rpc.CommitmentFinalized, want: Pending},
		{desc: "finalized at finalized", answer: answer(rpc.ConfirmationStatusFinalized, nil, nil), commitment: rpc.CommitmentFinalized, want: Confirmed},
		{desc: "finalized at confirmed", answer: answer(rpc.ConfirmationStatusFinalized, nil, nil), commitment: rpc.CommitmentConfirmed, want: Confirmed},
		{desc: "failed while processed is still pending", answer: answer(rpc.ConfirmationStatusProcessed, &zero, failure), commitment: rpc.CommitmentConfirmed, want: Pending},
		{desc: "failed at confirmed", answer: answer(rpc.ConfirmationStatusConfirmed, &zero, failure), commitment: rpc.CommitmentConfirmed, want: Failed},
		{desc: "failed, confirmed, at finalized is pending", answer: answer(rpc.ConfirmationStatusConfirmed, &zero, failure), commitment: rpc.CommitmentFinalized, want: Pending},
		{desc: "an old node without level, rooted", answer: answer("", nil, nil), commitment: rpc.CommitmentFinalized, want: Confirmed},
		{desc: "an old node without level, not rooted", answer: answer("", &zero, nil), commitment: rpc.CommitmentConfirmed, want: Pending},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, err := statusOf(tc.answer, tc.commitment)
			require.NoError(t, err)
			require.Equal(t, tc.want, got.State)
			if tc.want == Failed {
				require.JSONEq(t, `{"InstructionError":[1,{"Custom":1}]}`, got.Err)
				require.Equal(t, uint64(7), got.Slot)
			}
		})
	}
}

func TestRPCErrorReadsThePreflightError(t *testing.T) {
	t.Parallel()
	expired := rpcError("sendTransaction", &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found", Data: map[string]any{"err": "BlockhashNotFound"}})
	require.ErrorIs(t, expired, ErrBlockhashNotFound)
	require.Equal(t, "solana: sendTransaction: rpc error -32002: Transaction simulation failed: Blockhash not found (BlockhashNotFound)", expired.Error())

	insufficient := rpcError("sendTransaction", fmt.Errorf("wrapped: %w", &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed", Data: map[string]any{"err": map[string]any{"InstructionError": []any{1, map[string]any{"Custom": 1}}}}}))
	var re *RPCError
	require.ErrorAs(t, insufficient, &re)
	require.JSONEq(t, `{"InstructionError":[1,{"Custom":1}]}`, re.TxErr)
	require.NotErrorIs(t, insufficient, ErrBlockhashNotFound)

	other := rpcError("getBlockHeight", errors.New("connection refused"))
	require.EqualError(t, other, "solana: getBlockHeight: connection refused")
}
