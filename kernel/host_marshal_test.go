package kernel_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zcsim/zcsim/kernel"
)

// An ObjectID renders as "kind#serial", in text and in JSON.
func TestObjectIDText(t *testing.T) {
	id := kernel.ObjectID{Kind: "uarg", Serial: 42}
	require.Equal(t, "uarg#42", id.String())
	b, err := json.Marshal(struct{ Object kernel.ObjectID }{id})
	require.NoError(t, err)
	require.JSONEq(t, `{"Object":"uarg#42"}`, string(b))
}
