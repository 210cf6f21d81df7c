package replay

import (
	"encoding/json"
	"fmt"
	"io"

	"windowlab/accesslog"
	"windowlab/human"
	"windowlab/sim/report"
)

// CompareDocument is --compare --json's output, the schema's source
// (schema/compare.schema.json, generated from it by the tests).
type CompareDocument struct {
	SchemaVersion int            `json:"schema_version" jsonschema_description:"the version of this output's contract (see schema/README.md)"`
	Log           string         `json:"log" jsonschema_description:"the log's name as given"`
	Field         string         `json:"field" jsonschema_description:"where the log holds the server's decision: status, field:NAME"`
	Requests      int64          `json:"requests" jsonschema_description:"the requests replayed"`
	Missing       int64          `json:"missing" jsonschema_description:"requests whose line held no decision (empty, - or null): not compared"`
	Settings      []CompareEntry `json:"settings" jsonschema_description:"one entry per limiter and setting, settings outer"`
}

// CompareEntry is one limiter at one setting.
type CompareEntry struct {
	Limiter       string                `json:"limiter" jsonschema_description:"the limiter as the CLI names it: sliding-log, sliding-counter/httprate"`
	Limit         int64                 `json:"limit"`
	WindowMs      int64                 `json:"window_ms"`
	Burst         int64                 `json:"burst,omitempty" jsonschema_description:"a token bucket's capacity in tokens, when it is not the limit (--burst)"`
	Window        string                `json:"window" jsonschema_description:"the window, for people: 1m"`
	Compared      int64                 `json:"compared" jsonschema_description:"requests whose line held the server's decision"`
	Agree         int64                 `json:"agree" jsonschema_description:"of those, the ones the limiter decided as the server did"`
	Share         float64               `json:"share" jsonschema_description:"agree / compared, in percent, for display (0 when none was compared)"`
	NearFlip      int64                 `json:"near_flip" jsonschema_description:"compared requests the limiter would have decided otherwise 1 ms earlier or later: where a disagreement may be the clocks' (0 on a --store, where it is not measured)"`
	Disagreements []CompareDisagreement `json:"disagreements" jsonschema_description:"the first five requests decided otherwise, in the order decided"`
}

// CompareDisagreement is one request the limiter decided otherwise.
type CompareDisagreement struct {
	Line    int64  `json:"line" jsonschema_description:"the request's line in the log, from 1"`
	AtMs    int64  `json:"at_ms" jsonschema_description:"its instant, milliseconds since the Unix epoch"`
	At      string `json:"at" jsonschema_description:"the same, for people, UTC"`
	Client  string `json:"client" jsonschema_description:"the client's key, exactly"`
	Server  string `json:"server" jsonschema_description:"the server's decision: allowed or denied"`
	Allowed bool   `json:"allowed" jsonschema_description:"the limiter's decision"`
	Explain string `json:"explain" jsonschema_description:"the limiter's arithmetic"`
}

// CompareJSON writes --compare's figures as one JSON object.
func CompareJSON(w io.Writer, l *accesslog.Log, field string, rows []Agreement) error {
	doc := CompareDocument{SchemaVersion: report.SchemaVersion, Log: l.Name, Field: field, Requests: l.Requests, Settings: []CompareEntry{}}
	for _, a := range rows {
		doc.Missing = a.Missing
		e := CompareEntry{Limiter: a.Algorithm.String(), Limit: a.setting.Config.Limit, WindowMs: a.setting.Config.Window.Milliseconds(), Burst: Burst(a.setting.Config, a.Algorithm),
			Window: human.Duration(a.setting.Config.Window), Compared: a.Compared, Agree: a.Agree, Share: a.Share(), NearFlip: a.NearFlip, Disagreements: []CompareDisagreement{}}
		for _, d := range a.First {
			e.Disagreements = append(e.Disagreements, CompareDisagreement{Line: d.Line, AtMs: int64(d.At), At: d.At.Time().Format("2006-01-02T15:04:05.000Z"),
				Client: d.Client, Server: d.Server.String(), Allowed: d.Model.Allowed, Explain: d.Model.Explain()})
		}
		doc.Settings = append(doc.Settings, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("--compare --json: %w", err)
	}
	return nil
}
