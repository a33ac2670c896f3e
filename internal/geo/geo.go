// Package geo places providers and customers' questions on a ladder of
// regions: a city (or datacenter region) inside a country, the country
// (ISO 3166-1 alpha-2), its continent, the world. Price recommendations
// widen along it until a region has enough of a market.
//
// Countries come from github.com/biter777/countries, a maintained table of
// ISO 3166-1 with names, codes and UN M.49 continents, so "Portugal", "PT"
// and "PRT" are one country and a country's continent is not a table of
// our own. Applications store the country as the applicant typed it; this
// package is where it becomes a code.
package geo

import (
	"strings"

	"github.com/biter777/countries"
)

// Level is a rung of the ladder, narrowest first.
type Level string

// The levels.
const (
	City      Level = "CITY"
	Country   Level = "COUNTRY"
	Continent Level = "CONTINENT"
	World     Level = "WORLD"
)

// Levels are the rungs from narrowest to widest.
var Levels = []Level{City, Country, Continent, World}

// Continents are the continent codes, with the English names a region may
// be given by.
var Continents = map[string]string{
	"AF": "Africa", "AN": "Antarctica", "AS": "Asia", "EU": "Europe",
	"NA": "North America", "OC": "Oceania", "SA": "South America",
}

var continentOf = map[countries.RegionCode]string{
	countries.RegionAF: "AF", countries.RegionAN: "AN", countries.RegionAS: "AS", countries.RegionEU: "EU",
	countries.RegionNA: "NA", countries.RegionOC: "OC", countries.RegionSA: "SA",
}

// CountryOf returns the ISO 3166-1 alpha-2 code and continent code of a
// country given by name or code ("Portugal", "PT", "PRT"); ok is false
// when it is not a country.
func CountryOf(name string) (code, continent string, ok bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", false
	}
	c := countries.ByName(name)
	if c == countries.Unknown || !c.IsValid() {
		return "", "", false
	}
	return c.Alpha2(), continentOf[c.Region()], true
}

// Place is where something is: any part may be empty when unknown.
type Place struct {
	// City is a city or a datacenter region, lower-cased for matching.
	City string
	// Country is an ISO 3166-1 alpha-2 code; Continent a key of
	// Continents.
	Country, Continent string
}

// PlaceOf normalises a stored location: the city (or, without one, the
// datacenter region) lower-cased, the country as its code and its
// continent. An unrecognised country leaves country and continent empty.
func PlaceOf(city, region, country *string) Place {
	var p Place
	switch {
	case city != nil && strings.TrimSpace(*city) != "":
		p.City = strings.ToLower(strings.TrimSpace(*city))
	case region != nil && strings.TrimSpace(*region) != "":
		p.City = strings.ToLower(strings.TrimSpace(*region))
	}
	if country != nil {
		p.Country, p.Continent, _ = CountryOf(*country)
	}
	return p
}

// Region is a rung of the ladder with its keys: a City region has all
// three, a Country region country and continent, and so on.
type Region struct {
	Level Level
	Place
}

// Contains reports whether p lies inside r.
func (r Region) Contains(p Place) bool {
	switch r.Level {
	case City:
		return p.City != "" && p.City == r.City && p.Country == r.Country
	case Country:
		return p.Country != "" && p.Country == r.Country
	case Continent:
		return p.Continent != "" && p.Continent == r.Continent
	default:
		return true
	}
}

// Wider returns the next rung up (World stays World).
func (r Region) Wider() Region {
	switch r.Level {
	case City:
		return Region{Level: Country, Place: Place{Country: r.Country, Continent: r.Continent}}
	case Country:
		return Region{Level: Continent, Place: Place{Continent: r.Continent}}
	default:
		return Region{Level: World}
	}
}

// RegionOf is the narrowest region a place gives: its city when it has a
// city and a country, else its country, its continent or the world.
func RegionOf(p Place) Region {
	switch {
	case p.City != "" && p.Country != "":
		return Region{Level: City, Place: p}
	case p.Country != "":
		return Region{Level: Country, Place: Place{Country: p.Country, Continent: p.Continent}}
	case p.Continent != "":
		return Region{Level: Continent, Place: Place{Continent: p.Continent}}
	default:
		return Region{Level: World}
	}
}

// ParseRegion reads a region as people write one:
//
//	world                      the whole market ("worldwide" too)
//	Europe, North America, …   a continent by its English name
//	PT, PRT, Portugal          a country by code or English name
//	Lisbon, PT                 a city or datacenter region, comma, its country
//
// Case and surrounding spaces do not matter. ok is false for anything
// else (a bare city is refused: Valencia is in Spain and in Venezuela).
func ParseRegion(s string) (Region, bool) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	if lower == "world" || lower == "worldwide" {
		return Region{Level: World}, true
	}
	for code, name := range Continents {
		if strings.EqualFold(name, s) {
			return Region{Level: Continent, Place: Place{Continent: code}}, true
		}
	}
	if city, country, found := strings.Cut(s, ","); found {
		city = strings.ToLower(strings.TrimSpace(city))
		code, continent, ok := CountryOf(country)
		if city == "" || !ok {
			return Region{}, false
		}
		return Region{Level: City, Place: Place{City: city, Country: code, Continent: continent}}, true
	}
	if code, continent, ok := CountryOf(s); ok {
		return Region{Level: Country, Place: Place{Country: code, Continent: continent}}, true
	}
	return Region{}, false
}

// CountryNames are the lower-cased ways a country is written (its
// alpha-2 and alpha-3 codes and English name) when s names one, else just
// s lower-cased: what a stored, typed-in country is compared with.
func CountryNames(s string) []string {
	s = strings.TrimSpace(s)
	c := countries.ByName(s)
	if c == countries.Unknown || !c.IsValid() {
		return []string{strings.ToLower(s)}
	}
	return []string{strings.ToLower(c.Alpha2()), strings.ToLower(c.Alpha3()), strings.ToLower(c.String())}
}
