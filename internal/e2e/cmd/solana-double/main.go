// Command solana-double serves the Solana node double of package
// solanatest over loopback HTTP for the browser tests (frontend/e2e), which
// cannot run a Go test's in-process server. It is built by make e2e into
// bin/solana-double and is no part of the gpunex binary.
//
// At start it makes the platform's key (written as a Solana CLI key file,
// mode 0600, to --dir), opens the platform's USDC account deposits arrive
// in, and makes one customer wallet holding --usdc USDC. It then prints
// one line of JSON and serves until it is sent SIGINT or SIGTERM:
//
//	{"rpcUrl":"http://127.0.0.1:…","controlUrl":"http://127.0.0.1:…","keyFile":"…/platform.json","mint":"EPjF…","wallet":"…"}
//
// gpunex serve takes --solana-rpc-url rpcUrl and --solana-key-file keyFile
// (the mint is --solana-usdc-mint's default, mainnet USDC). The test then
// acts as the customer's wallet app through controlUrl:
//
//	POST /pay {"link":"solana:…","hold":true} → {"signature":"…"}
//	  builds, signs and sends the transfer the Solana Pay link asks for,
//	  as a wallet does (solanatest.Wallet.Pay); with hold, it stays at
//	  confirmed (listed by getSignaturesForAddress, not yet finalized).
//	POST /finalize {"signature":"…"} → {}
//	  finalizes a held transfer (solanatest.Server.Finalize).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"

	solana "github.com/gagliardetto/solana-go"

	"github.com/gpunex/gpunex/internal/billing/solana/solanatest"
	"github.com/gpunex/gpunex/models"
)

func main() {
	dir := flag.String("dir", "", "where the platform's key file is written (default: a new temporary folder, removed at exit)")
	usdc := flag.String("usdc", "1000", "what the customer's wallet holds, in USDC")
	flag.Parse()
	if err := run(*dir, *usdc); err != nil {
		fmt.Fprintln(os.Stderr, "solana-double:", err)
		os.Exit(1)
	}
}

// started is the line printed once the double serves.
type started struct {
	RPCURL     string `json:"rpcUrl"`
	ControlURL string `json:"controlUrl"`
	KeyFile    string `json:"keyFile"`
	Mint       string `json:"mint"`
	Wallet     string `json:"wallet"`
}

func run(dir, usdc string) error {
	amount, err := models.ParseUSDC(usdc)
	if err != nil || amount <= 0 {
		return fmt.Errorf("--usdc %q: a positive USDC amount", usdc)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "solana-double-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	platform, err := solana.NewRandomPrivateKey()
	if err != nil {
		return err
	}
	keyFile, err := solanatest.WriteKeyFile(dir, platform)
	if err != nil {
		return err
	}
	node, err := solanatest.Start(solanatest.Config{Payer: platform.PublicKey()})
	if err != nil {
		return err
	}
	defer node.Close()
	node.Fund(platform.PublicKey(), solanatest.USDCMint, 0)
	wallet, err := node.OpenWallet(amount)
	if err != nil {
		return err
	}
	defer wallet.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	control := &http.Server{Handler: controlHandler(node, wallet)}
	go func() { _ = control.Serve(ln) }()
	defer control.Close()

	line, err := json.Marshal(started{
		RPCURL: node.URL(), ControlURL: "http://" + ln.Addr().String(), KeyFile: keyFile,
		Mint: solanatest.USDCMint.String(), Wallet: wallet.Address().String(),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(line))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// controlHandler serves /pay and /finalize. Pays are serialised, so a
// hold applies to the pay that asked for it.
func controlHandler(node *solanatest.Server, wallet *solanatest.Wallet) http.Handler {
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("POST /pay", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Link string `json:"link"`
			Hold bool   `json:"hold"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			reply(w, http.StatusBadRequest, err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if req.Hold {
			node.Hold()
		}
		sig, err := wallet.Pay(r.Context(), req.Link)
		if err != nil {
			reply(w, http.StatusUnprocessableEntity, err)
			return
		}
		reply(w, http.StatusOK, map[string]string{"signature": sig})
	})
	mux.HandleFunc("POST /finalize", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Signature string `json:"signature"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			reply(w, http.StatusBadRequest, err)
			return
		}
		if _, err := solana.SignatureFromBase58(req.Signature); err != nil {
			reply(w, http.StatusBadRequest, errors.New("signature: not a base58 transaction signature"))
			return
		}
		node.Finalize(req.Signature)
		reply(w, http.StatusOK, struct{}{})
	})
	return mux
}

// reply writes v as JSON, an error as {"error": its message}.
func reply(w http.ResponseWriter, status int, v any) {
	if err, ok := v.(error); ok {
		v = map[string]string{"error": err.Error()}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
