// Package floaty breaks rule 7 on purpose: TestNoFloatTouchesMoney's
// checker must find it.
package floaty

import "github.com/gpunex/gpunex/models"

// Half converts money to a float.
func Half(p models.USDC) float64 { return float64(p) / 2 }

// Count converts an int, which is fine.
func Count(n int) float64 { return float64(n) }
